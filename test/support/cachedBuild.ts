import path from 'node:path';
import { ROOT } from '../../src/config.js';
import { buildDataset } from '../../src/ingest/build.js';
import { inputsHash } from '../global-setup.js';
import { freshFixture } from './freshFixture.js';

type BuildOptions = Omit<Parameters<typeof buildDataset>[0], 'outDir' | 'log'>;

/**
 * A data build that one test file needs and only reads, in .tmp/builds/<name>: written in that
 * file's beforeAll (so on a clean clone it overlaps the other files, as before) and kept for the
 * next run while its options and inputs are unchanged, so rerunning the file skips the build.
 * A test that writes into a build copies it first.
 */
export function cachedBuild(name: string, options: BuildOptions): Promise<string> {
  return freshFixture(path.join(ROOT, '.tmp', 'builds', name), { options, inputs: inputsHash() }, async (outDir) => {
    await buildDataset({ outDir, ...options, log: () => {} });
  });
}
