/**
 * The benchmark that chose the climate storage layout (`make bench-layout`). On the default data,
 * NEX-GDDP RCP85, it compares:
 *   per-cell:   climate/<dataset>/<scenario>/<cell>.parquet (the path is computed; no glob)
 *   one-file:   one Parquet per (dataset, scenario) with a cell_id column, sorted by cell, model, date,
 *               so row-group statistics prune to the requested cell
 * on queries a request runs for one cell: model-averaged raw days, yearly frost days per model,
 * monthly mean tasmax per model. Prints medians (ms) over all cells, interleaving the layouts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../src/config.js';
import { openDuckDB, readRows } from '../src/db/duckdb.js';
import { sqlString } from '../src/db/sqlFiles.js';

const DATA_DIR = path.resolve(process.env.DATA_DIR ?? path.join(ROOT, 'data', 'build'));
const dir = path.join(DATA_DIR, 'climate', 'NEX-GDDP', 'RCP85');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const QUERIES: Record<string, string> = {
  'raw avg across models': `SELECT date, avg(tasmax), avg(tasmin), avg(pr) FROM SRC GROUP BY date ORDER BY date`,
  'frost days yearly': `SELECT year(date) y, model, count(*) FILTER (WHERE tasmin <= 273.15) FROM SRC GROUP BY ALL`,
  'monthly mean tasmax': `SELECT year(date) y, month(date) m, model, avg(tasmax) FROM SRC GROUP BY ALL`,
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  if (!fs.existsSync(dir)) throw new Error(`No climate data at ${dir}; run \`make data\` first.`);
  const cells = fs.readdirSync(dir).map((f) => Number(path.basename(f, '.parquet')));
  const db = await openDuckDB({ threads: os.availableParallelism(), memoryLimit: '2GB' });
  const conn = await db.connect();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'layout-'));
  const oneFile = path.join(tmp, 'RCP85.parquet');
  process.stderr.write(`writing the one-file layout for ${cells.length} cells...\n`);
  await conn.run(
    `COPY (SELECT parse_filename(filename, true)::INTEGER AS cell_id, model, date, tasmax, tasmin, pr
           FROM read_parquet(${sqlString(dir + '/*.parquet')}, filename = true) ORDER BY cell_id, model, date)
     TO ${sqlString(oneFile)} (FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION V2)`,
  );
  const sizes = {
    'per-cell': fs.readdirSync(dir).reduce((s, f) => s + fs.statSync(path.join(dir, f)).size, 0),
    'one-file': fs.statSync(oneFile).size,
  };
  const times: Record<string, number[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const cell of cells) {
      for (const [name, sql] of Object.entries(QUERIES)) {
        for (const layout of round % 2 === 0 ? ['per-cell', 'one-file'] : ['one-file', 'per-cell']) {
          const src =
            layout === 'per-cell'
              ? `read_parquet(${sqlString(path.join(dir, `${cell}.parquet`))})`
              : `(SELECT * FROM read_parquet(${sqlString(oneFile)}) WHERE cell_id = ${cell})`;
          const t0 = performance.now();
          await readRows(conn, sql.replace('SRC', src));
          (times[`${name}|${layout}`] ??= []).push(performance.now() - t0);
        }
      }
    }
  }
  console.log(`\nNEX-GDDP RCP85, ${cells.length} cells x 21 models x 95 years, ${ROUNDS} rounds, ${os.availableParallelism()} threads; median ms\n`);
  console.log('| query | per-cell files | one file sorted by cell | ratio |');
  console.log('|---|---|---|---|');
  for (const name of Object.keys(QUERIES)) {
    const a = median(times[`${name}|per-cell`]!);
    const b = median(times[`${name}|one-file`]!);
    console.log(`| ${name} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(2)} |`);
  }
  console.log(`| bytes on disk | ${(sizes['per-cell'] / 1e6).toFixed(0)} MB | ${(sizes['one-file'] / 1e6).toFixed(0)} MB | |`);
  fs.rmSync(tmp, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
