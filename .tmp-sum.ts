import { openDuckDB } from './src/db/duckdb.js';
import { writeAllSummaries } from './src/ingest/summaries.js';
const db = await openDuckDB({ threads: 2, memoryLimit: '512MB' });
const t = performance.now(); const u = process.cpuUsage();
const n = await writeAllSummaries(db, '/tmp/exp/sb', 2, () => {});
const c = process.cpuUsage(u);
console.log(n, 'partitions', ((performance.now() - t) / 1000).toFixed(2), 's wall', ((c.user + c.system) / 1e6).toFixed(2), 's cpu (user', (c.user/1e6).toFixed(2), 'sys', (c.system/1e6).toFixed(2), ')');
await db.close();
