import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { createAuth } from './auth/index.js';
import { loadConfig } from './config.js';
import { openDuckDB } from './db/duckdb.js';
import { sqlFile } from './db/sqlFiles.js';
import { QueryPool } from './db/queryPool.js';
import { loadCatalog } from './reference/catalog.js';

async function main() {
  const config = loadConfig();
  const db = await openDuckDB({ threads: config.DUCKDB_THREADS, memoryLimit: config.DUCKDB_MEMORY_LIMIT });
  const conn = await db.connect();
  const catalog = await loadCatalog(conn, config.DATA_DIR);
  const queries = await QueryPool.open(db, config.QUERY_CONCURRENCY, config.QUERY_TIMEOUT_MS, sqlFile('indicators/macros.sql'));
  const auth = await createAuth(config);
  const app = createApp({ config, catalog, queries, auth });

  const server = app.listen(config.PORT, config.HOST, () => {
    const { port } = server.address() as AddressInfo;
    const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
    console.log(
      [
        `Climate projection service listening on http://${host}:${port}/`,
        `  data build ${catalog.manifest.build_id} (${catalog.cities.length} cities) from ${config.DATA_DIR}`,
        `  get a token: make user EMAIL=you@example.com PASSWORD='choose-one'   (prints the token last)`,
        `    or, for an existing account: curl -X POST -d email=... -d password=... http://${host}:${port}/api-token-auth/`,
        `  then: curl -H "Authorization: Token <token>" http://${host}:${port}/api/city/`,
        `  API documentation: http://${host}:${port}/docs/ (OpenAPI document: /openapi.json)`,
      ].join('\n'),
    );
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests, then exiting`);
    server.close(async () => {
      await auth.close();
      queries.close();
      conn.closeSync();
      db.closeSync();
      process.exit(0);
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), 10_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
