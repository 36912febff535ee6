import { openDuckDB } from './src/db/duckdb.js';
import { writeAllSummaries } from './src/ingest/summaries.js';
const db = await openDuckDB({ threads: 2, memoryLimit: '1GB' });
const t = performance.now(); const u = process.cpuUsage();
await writeAllSummaries(db, process.argv[2] ?? '/tmp/sb', 2, () => {});
const c = process.cpuUsage(u);
console.log(((performance.now() - t) / 1000).toFixed(2), 's wall', ((c.user + c.system) / 1e6).toFixed(2), 's cpu');
