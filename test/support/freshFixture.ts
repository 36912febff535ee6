import fs from 'node:fs';
import path from 'node:path';

/**
 * A fixture folder kept across runs under .tmp/: written again only when `key` (the options it is
 * made from and the hash of its inputs, see inputsHash in test/global-setup.ts) changed, so a rerun
 * of the suite or of one file starts at once. The key is stamped after `write` returns: a run
 * stopped halfway leaves no stamp, and the next one writes the folder anew.
 *
 * Made in test/global-setup.ts and handed to the files with project.provide, a fixture is written
 * once per run however many files read it; those files treat it as read-only (a test that changes
 * data copies it first, as copyOfTestData does).
 */
export async function freshFixture(outDir: string, key: unknown, write: (outDir: string) => Promise<void>): Promise<string> {
  const stamp = path.join(outDir, '.fixture-key.json');
  const wanted = JSON.stringify(key);
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === wanted) return outDir;
  fs.rmSync(stamp, { force: true });
  await write(outDir);
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(stamp, wanted);
  return outDir;
}
