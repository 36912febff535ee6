import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.js';

/**
 * The data build a command rewrites in place: DATA_DIR of the configuration, which must hold a
 * build (its manifest); otherwise the reason and what to do are printed and the process exits with
 * status 2.
 */
export function buildDataDir(): string {
  let dataDir: string;
  try {
    dataDir = path.resolve(loadConfig().DATA_DIR);
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
  if (!fs.existsSync(path.join(dataDir, 'manifest.json'))) {
    console.error(`No data build in ${dataDir}: build one with \`make data\` (it writes the summaries and the map files too), or set DATA_DIR.`);
    process.exit(2);
  }
  return dataDir;
}
