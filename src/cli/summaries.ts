/**
 * `make summaries`: (re)writes the per-cell summaries (monthly, ensemble, ensemble_json) of every
 * cell in DATA_DIR from its daily files, in place. For a data build made by an older version of the
 * service (the server answers 503 naming this command): much faster than `make data`, and it keeps
 * data that `make ingest` added. Each file is replaced atomically, so a server may keep running.
 * Compiled, without make: DATA_DIR=... node dist/cli/summaries.js
 */
import os from 'node:os';
import { openDuckDB } from '../db/duckdb.js';
import { writeAllSummaries } from '../ingest/summaries.js';
import { writeBuildMapFiles } from '../maps/writeMapFiles.js';
import { buildDataDir } from './buildDataDir.js';

const dataDir = buildDataDir();
const started = Date.now();
const db = await openDuckDB({ threads: os.availableParallelism(), memoryLimit: '2GB' });
try {
  let last = 0;
  const written = await writeAllSummaries(db, dataDir, Math.min(4, Math.max(2, os.availableParallelism())), (done, total) => {
    if (done === total || Date.now() - last > 5000) {
      last = Date.now();
      console.error(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] summaries ${done}/${total} partitions`);
    }
  });
  console.log(`Wrote the summaries of ${written} partitions in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  // The map files hold values computed from the summaries: written again from the new ones.
  const conn = await db.connect();
  try {
    await writeBuildMapFiles(conn, dataDir, {}, (line) => console.error(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${line}`));
  } finally {
    conn.closeSync();
  }
} catch (err) {
  console.error(`Writing the summaries or the map files failed: ${err instanceof Error ? err.message : String(err)}`);
  console.error('Every summary file holds its previous or its new contents; fix the problem and run `make summaries` again.');
  process.exit(1);
} finally {
  await db.close();
}
