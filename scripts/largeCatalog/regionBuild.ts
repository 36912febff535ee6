/**
 * A copy of a data build with every cell of some boxes given data, as a region ingest (make ingest
 * BBOX=) leaves a build, made in seconds: for the large-catalog tests and `make bench-catalog`.
 *
 * What is faked: each added cell's files are hard links to the files of the dataset's first cell
 * with data in the base build (or to a copy of them, past the file system's links per file), for
 * the scenarios asked for only, and their map files' rows (of the indicators asked for; the others'
 * maps compute the added cells) the template's too. Start-up opens no cell file; a lookup reads
 * one cell's files whichever it is (the same bytes and layout as a real cell's); a reload's check
 * lists every directory entry and reads each file's ends, which a link has as a file does. What
 * such a build answers for an added cell is its template cell's values, at the added cell's place.
 */
import fs from 'node:fs';
import path from 'node:path';
import { INTEGER, LIST, listValue } from '@duckdb/node-api';
import { CELL_TREES } from '../../src/dataBuild/files.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openDuckDB } from '../../src/db/duckdb.js';
import { sqlString } from '../../src/db/sqlFiles.js';
import { MAP_FILES_DIR } from '../../src/maps/mapFiles.js';
import { cellParts, mapFileYearRows, writeMapFile } from '../../src/maps/writeMapFiles.js';
import { GRIDS } from '../../src/reference/grids.js';

/** `count` cells of a dataset's grid, row by row from (row0, col0), `cols` a row. */
export interface CellBox {
  dataset: string;
  row0: number;
  col0: number;
  cols: number;
  count: number;
}

/** The id of the box's k-th cell. */
export function boxCell(box: CellBox, k: number): number {
  return (box.row0 + Math.floor(k / box.cols)) * GRIDS[box.dataset]!.cols + box.col0 + (k % box.cols);
}

/** Hard links of every file below `from` at the same paths below `to` (but for the top-level entries in `skip`). */
export function linkTree(from: string, to: string, skip: string[] = []) {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (skip.includes(entry.name)) continue;
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) linkTree(src, dst);
    else fs.linkSync(src, dst);
  }
}

/**
 * The map files of `indicators` in a scenario's folder with the template cell's rows
 * given to each added cell too, as the build would compute them: the added cells' days are the
 * template's. The linked file is replaced, never written through.
 */
async function addMapRows(conn: DuckDBConnection, folder: string, template: number, ids: number[], indicators: string[]) {
  if (!fs.existsSync(folder)) return;
  for (const name of fs.readdirSync(folder)) {
    const indicator = name.replace(/-[0-9a-f]{12}\.parquet$/, '');
    if (!indicators.includes(indicator)) continue;
    const file = path.join(folder, name);
    const old = `${file}.base`;
    fs.renameSync(file, old);
    const baseIds = (await conn.runAndReadAll(`SELECT DISTINCT cell_id::INTEGER FROM read_parquet(${sqlString(old)})`)).getColumnsJS()[0] as number[];
    const added = new Set(ids);
    const parts = cellParts([...baseIds, ...ids]);
    await writeMapFile(conn, [{ target: file, kept: old, fresh: ids }], parts, async (k, table) => {
      await conn.run(
        `INSERT INTO ${table} SELECT 0, a.id, t.model, t.year, t.value FROM (${mapFileYearRows(old)}) t, (SELECT unnest($added) AS id) a WHERE t.cell_id = $template`,
        { added: listValue(parts[k]!.filter((id) => added.has(id))), template } as never,
        { added: LIST(INTEGER), template: INTEGER },
      );
    });
    fs.rmSync(old);
  }
}

/**
 * Writes into `dir` (which must not exist) the build `base` with every cell of `boxes` given data
 * in `scenario`: files linked as the head of this file says, map_cell.parquet and the manifest's
 * counts rewritten, build id `buildId`. The base must have a cell with data in each box's dataset
 * and scenario.
 */
export async function writeRegionBuild(base: string, dir: string, boxes: CellBox[], scenario: string | string[], buildId: string, opts: { mapIndicators?: string[] } = {}): Promise<void> {
  const scenarios = typeof scenario === 'string' ? [scenario] : scenario;
  for (const tree of ['catalog', ...CELL_TREES, MAP_FILES_DIR]) if (fs.existsSync(path.join(base, tree))) linkTree(path.join(base, tree), path.join(dir, tree));
  const manifest = JSON.parse(fs.readFileSync(path.join(base, 'manifest.json'), 'utf8')) as Record<string, unknown> & {
    datasets: Record<string, { cells_with_data: number }>;
    files: Record<string, number>;
  };
  // A table of its own (the linked one is the base's file: never write through it).
  const mapCell = path.join(dir, 'catalog', 'map_cell.parquet');
  fs.rmSync(mapCell);
  const baseCells = path.join(base, 'catalog', 'map_cell.parquet');
  const db = await openDuckDB({ threads: 2, memoryLimit: '1GB' });
  const conn = await db.connect();
  try {
    await conn.run('CREATE TEMP TABLE added (dataset VARCHAR, cell_id INTEGER, lat DOUBLE, lon DOUBLE, ocean BOOLEAN, coastal BOOLEAN, has_data BOOLEAN)');
    for (const box of boxes) {
      const grid = GRIDS[box.dataset]!;
      const withData = (await conn.runAndReadAll('SELECT cell_id::INTEGER FROM read_parquet($f) WHERE dataset = $d AND has_data ORDER BY 1', { f: baseCells, d: box.dataset })).getColumnsJS()[0] as number[];
      const template = withData.find((id) => scenarios.every((s) => fs.existsSync(path.join(dir, 'climate', box.dataset, s, `${id}.parquet`))));
      if (template === undefined) throw new Error(`The base build has no ${box.dataset} cell with ${scenarios.join(' and ')} data.`);
      const had = new Set(withData);
      const ids: number[] = [];
      for (let k = 0; k < box.count; k++) if (!had.has(boxCell(box, k))) ids.push(boxCell(box, k));
      for (const s of scenarios) {
        for (const tree of CELL_TREES) {
          let from = path.join(dir, tree, box.dataset, s, `${template}.parquet`);
          for (const id of ids) {
            const to = path.join(dir, tree, box.dataset, s, `${id}.parquet`);
            try {
              fs.linkSync(from, to);
            } catch (err) {
              // A file system allows so many links to a file (ext4: 65,000): a copy starts the next ones.
              if ((err as NodeJS.ErrnoException).code !== 'EMLINK') throw err;
              fs.copyFileSync(from, to);
              from = to;
            }
          }
          manifest.files[tree] = (manifest.files[tree] ?? 0) + ids.length;
        }
        await addMapRows(conn, path.join(dir, MAP_FILES_DIR, box.dataset, s), template, ids, opts.mapIndicators ?? []);
      }
      manifest.datasets[box.dataset]!.cells_with_data += ids.length;
      // The box's cells, at their centres as cellCentre computes them (the same double arithmetic).
      await conn.run(
        `INSERT INTO added SELECT $d, id, $lat0::DOUBLE + (id // $gcols::INTEGER + 0.5) * $size::DOUBLE, $lon0::DOUBLE + (id % $gcols::INTEGER + 0.5) * $size::DOUBLE, false, false, true
         FROM (SELECT (($row0::INTEGER + k::INTEGER // $cols::INTEGER) * $gcols::INTEGER + $col0::INTEGER + k::INTEGER % $cols::INTEGER)::INTEGER AS id FROM range($n::BIGINT) t(k))
         WHERE NOT list_contains($had, id)`,
        { d: box.dataset, lat0: grid.lat0, lon0: grid.lon0, size: grid.size, gcols: grid.cols, row0: box.row0, col0: box.col0, cols: box.cols, n: box.count, had: listValue(withData) },
        { had: LIST(INTEGER) },
      );
    }
    // A base row of a cell the boxes cover (a city's cell without data) gives way to the added one.
    await conn.run(
      `COPY (SELECT * FROM (
         SELECT b.dataset, b.cell_id::INTEGER AS cell_id, b.lat, b.lon, b.ocean, b.coastal, b.has_data FROM read_parquet('${baseCells}') b
         ANTI JOIN added a ON a.dataset = b.dataset AND a.cell_id = b.cell_id
         UNION ALL FROM added) ORDER BY dataset, cell_id) TO '${mapCell}' (FORMAT parquet, COMPRESSION zstd)`,
    );
  } finally {
    conn.closeSync();
    await db.close();
  }
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ ...manifest, build_id: buildId }, null, 2) + '\n');
}
