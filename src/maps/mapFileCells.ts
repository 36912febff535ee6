import fs from 'node:fs';
import type { QueryPool } from '../db/queryPool.js';

/**
 * The cells each map file holds, read once per version of the file: a map needs them to tell a
 * cell the file has no row for (computed instead) from one it holds, and scanning a file's ids
 * again at every request was 3 of the 11 ms a whole map of the default build spends in DuckDB. A
 * version is the file's identity and modification (device, inode, mtime in ns, size): the writers
 * rename a new file over the old one, so a rewritten file is never taken for the one before. What
 * is kept depends only on the file, so one cache serves every app of the process; it holds the
 * latest MOST_FILES files (an 11,000-cell file's ids are 44 KB).
 */
const MOST_FILES = 256;

interface Held {
  version: string;
  cells: Promise<Int32Array>;
}

const held = new Map<string, Held>();

function versionOf(file: string): string {
  const s = fs.statSync(file, { bigint: true });
  return `${s.dev}:${s.ino}:${s.mtimeNs}:${s.size}`;
}

async function readCells(queries: QueryPool, file: string): Promise<Int32Array> {
  const reader = await queries.run((conn) => conn.runAndReadAll('SELECT DISTINCT cell_id::INTEGER AS id FROM read_parquet($file) ORDER BY id', { file }));
  return Int32Array.from(reader.getColumnsJS()[0] as number[]);
}

/** The ids of the cells `file` holds, ascending. */
export function mapFileCells(queries: QueryPool, file: string): Promise<Int32Array> {
  const version = versionOf(file);
  const hit = held.get(file);
  held.delete(file);
  if (hit?.version === version) {
    held.set(file, hit);
    return hit.cells;
  }
  const entry: Held = { version, cells: readCells(queries, file) };
  // A failed read is not kept: the next request reads again.
  entry.cells.catch(() => {
    if (held.get(file) === entry) held.delete(file);
  });
  held.set(file, entry);
  if (held.size > MOST_FILES) held.delete(held.keys().next().value!);
  return entry.cells;
}

/** Whether the ascending `cells` have `id`. */
export function holdsCell(cells: Int32Array, id: number): boolean {
  let lo = 0;
  let hi = cells.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = cells[mid]!;
    if (v === id) return true;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
