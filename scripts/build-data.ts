/**
 * `make data`: builds the default dataset (reference catalog + synthetic climate) into DATA_DIR.
 *   DATA_DIR    (default data/build) where the build goes; built next to it and swapped in at the end
 *   DATA_CITIES (default 50) most populous cities whose map cells get climate data
 *   DATA_SEED   (default 1) seed of the synthetic generator
 *   DATA_AREA_CITIES (default 3) most populous cities whose boundary's NEX-GDDP cells all get climate data
 *   DATA_CMIP6_CITIES (default 10, at most DATA_CITIES) most populous cities that also get CMIP6 data
 *     (NEX-GDDP-CMIP6 and LOCA2), built after every CMIP5 cell
 *   DATA_CMIP6_AREA_CITIES (default 1) of those, the most populous whose boundary's NEX-GDDP-CMIP6 cells all get data
 */
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../src/config.js';
import { buildDataset } from '../src/ingest/build.js';
import { BuildError } from '../src/ingest/buildError.js';
import { AREA_CITIES, CMIP6_AREA_CITIES, CMIP6_CITIES } from '../src/ingest/buildOptions.js';
import { buildFailureHints } from '../src/ingest/buildFailure.js';

const env = (name: string) => (process.env[name] === '' ? undefined : process.env[name]);
const int = (name: string, fallback: number) => {
  const v = env(name);
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v)) {
    console.error(`${name} must be a non-negative integer, got '${v}'. Unset it for the default (${fallback}).`);
    process.exit(2);
  }
  return Number(v);
};

const outDir = path.resolve(env('DATA_DIR') ?? path.join(ROOT, 'data', 'build'));
const climateCities = int('DATA_CITIES', 50);
const seed = int('DATA_SEED', 1);
const areaCities = int('DATA_AREA_CITIES', AREA_CITIES);
const cmip6Cities = int('DATA_CMIP6_CITIES', CMIP6_CITIES);
const cmip6AreaCities = int('DATA_CMIP6_AREA_CITIES', CMIP6_AREA_CITIES);

// A build interrupted with Ctrl-C removes its half-written folder; after a kill -9 the next build does.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    fs.rmSync(`${outDir}.tmp-${process.pid}`, { recursive: true, force: true });
    console.error(`\nInterrupted (${signal}); ${outDir} was left as it was.`);
    process.exit(130);
  });
}

console.log(
  `Building the default data into ${outDir}: CMIP5 climate data for the cells of the ${climateCities} most populous cities and of the boundaries of the first ${Math.min(areaCities, climateCities)}, ` +
    `then CMIP6 data for the first ${Math.min(cmip6Cities, climateCities)} (and the boundaries of the first ${Math.min(cmip6AreaCities, cmip6Cities, climateCities)}), seed ${seed}`,
);
buildDataset({ outDir, climateCities, seed, areaCities, cmip6Cities, cmip6AreaCities }).then(
  () => process.exit(0),
  (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    console.error(`\nThe data build failed: ${message}`);
    for (const line of buildFailureHints(message, outDir)) console.error(line);
    console.error(`Nothing was replaced: ${fs.existsSync(outDir) ? `the previous build in ${outDir} is intact` : `there is no build in ${outDir} yet`}.`);
    if (err instanceof Error && !(err instanceof BuildError) && err.stack) console.error(`\n${err.stack}`);
    process.exit(1);
  },
);
