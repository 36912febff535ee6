import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { ROOT } from '../src/config.js';
import { buildDataset } from '../src/ingest/build.js';

/**
 * One small deterministic dataset for the whole suite, made by the same generator as the default
 * data: the full reference catalog, climate data for the 3 most populous cities' cells, a few
 * models and a few years per scenario.
 */
export const TEST_BUILD = {
  climateCities: 3,
  seed: 7,
  models: { 'NEX-GDDP': ['ACCESS1-0', 'CCSM4', 'MIROC5'], LOCA: ['ACCESS1-0', 'CCSM4'] },
  years: { historical: [1990, 1992], RCP45: [2050, 2052], RCP85: [2050, 2052] } as Record<string, [number, number]>,
};

export default async function setup(project: TestProject) {
  const outDir = path.join(ROOT, '.tmp', 'test-data');
  const stamp = path.join(outDir, 'test-build.json');
  const wanted = JSON.stringify(TEST_BUILD);
  // Rebuilt when the generator or its options change; reused otherwise to keep runs fast.
  const sources = ['src/ingest', 'sql/build', 'sql/indicators', 'src/reference'].flatMap((d) =>
    fs.readdirSync(path.join(ROOT, d)).map((f) => fs.statSync(path.join(ROOT, d, f)).mtimeMs),
  );
  const fresh =
    fs.existsSync(stamp) &&
    fs.readFileSync(stamp, 'utf8') === wanted &&
    fs.statSync(stamp).mtimeMs > Math.max(...sources);
  if (!fresh) {
    await buildDataset({ outDir, ...TEST_BUILD, log: () => {} });
    fs.writeFileSync(stamp, wanted);
  }
  project.provide('dataDir', outDir);
}

declare module 'vitest' {
  export interface ProvidedContext {
    dataDir: string;
  }
}
