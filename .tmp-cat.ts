import { openDuckDB, readRows } from './src/db/duckdb.js';
import { sqlFile } from './src/db/sqlFiles.js';
import { loadCatalog } from './src/reference/catalog.js';
const dir = '/work/main/.tmp/test-data';
const db = await openDuckDB({ threads: 2, memoryLimit: '512MB' });
const conn = await db.connect();
await loadCatalog(conn, dir);
for (const f of ['cities.sql', 'city_cells.sql', 'boundaries.sql', 'regions.sql', 'datasets.sql', 'climate_models.sql', 'scenarios.sql', 'historic_ranges.sql', 'warming_levels.sql', 'map_cells.sql', 'map_cell_counts.sql']) {
  const t = performance.now();
  const rows = await readRows(conn, sqlFile(`catalog/${f}`), { dir });
  const t2 = performance.now();
  const r2 = await conn.runAndReadAll(sqlFile(`catalog/${f}`), { dir });
  const t3 = performance.now();
  console.log(f.padEnd(22), rows.length, 'rows', (t2 - t).toFixed(0), 'ms as objects;', (t3 - t2).toFixed(0), 'ms query only');
}
for (let i = 0; i < 3; i++) { const t = performance.now(); await loadCatalog(conn, dir); console.log('loadCatalog', (performance.now() - t).toFixed(0)); }
