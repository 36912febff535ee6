/**
 * `make map-files`: (re)writes the map files (src/maps/mapFiles.ts) of every dataset in DATA_DIR
 * from its summaries and days, in place, and removes those of other layouts or parameters. For a
 * build whose map files an older version of the service wrote (their layout is in their names, so
 * this one never reads them, and its maps are computed instead): the map files alone, without the
 * summaries `make summaries` rewrites first (29-35 s against 640 s on the default build). Each file
 * is replaced atomically, so a server may keep running. Compiled, without make: DATA_DIR=... node
 * dist/cli/mapFiles.js
 */
import os from 'node:os';
import { openDuckDB } from '../db/duckdb.js';
import { writeBuildMapFiles } from '../maps/writeMapFiles.js';
import { buildDataDir } from './buildDataDir.js';

const dataDir = buildDataDir();
const started = Date.now();
const db = await openDuckDB({ threads: os.availableParallelism(), memoryLimit: '2GB' });
const conn = await db.connect();
try {
  const written = await writeBuildMapFiles(conn, dataDir, {}, (line) => console.error(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${line}`));
  console.log(`Wrote ${written.files} map files (${(written.rows / 1e6).toFixed(1)}M yearly values) in ${written.seconds.toFixed(1)} s.`);
} catch (err) {
  console.error(`Writing the map files failed: ${err instanceof Error ? err.message : String(err)}`);
  console.error('Every map file holds its previous or its new contents; fix the problem and run `make map-files` again.');
  process.exitCode = 1;
} finally {
  conn.closeSync();
  await db.close();
}
