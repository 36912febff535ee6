/**
 * `make data`: builds the default dataset (reference catalog + synthetic climate) into DATA_DIR.
 * DATA_CITIES (default 50): most populous cities whose map cells get climate data.
 * DATA_SEED (default 1): seed of the synthetic generator.
 */
import path from 'node:path';
import { ROOT } from '../src/config.js';
import { buildDataset } from '../src/ingest/build.js';

const env = (name: string) => (process.env[name] === '' ? undefined : process.env[name]);
const int = (name: string, fallback: number) => {
  const v = env(name);
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v)) {
    console.error(`${name} must be a non-negative integer, got '${v}'.`);
    process.exit(1);
  }
  return Number(v);
};

const outDir = path.resolve(env('DATA_DIR') ?? path.join(ROOT, 'data', 'build'));
const climateCities = int('DATA_CITIES', 50);
const seed = int('DATA_SEED', 1);

console.log(`Building the default data into ${outDir} (climate data for the ${climateCities} most populous cities, seed ${seed})`);
buildDataset({ outDir, climateCities, seed }).catch((err: unknown) => {
  console.error(`The data build failed: ${err instanceof Error ? err.message : err}`);
  console.error('Nothing was replaced; the previous build (if any) is intact. Check free disk space and the files in data/sources/.');
  process.exit(1);
});
