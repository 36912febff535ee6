import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { createAuth } from './auth/index.js';
import { loadConfig } from './config.js';
import { openDuckDB } from './db/duckdb.js';
import { sqlFile } from './db/sqlFiles.js';
import { QueryPool } from './db/queryPool.js';
import type { Lifecycle } from './http/opsRoutes.js';
import { createLogger } from './logger.js';
import { loadCatalog } from './reference/catalog.js';
import { shutDownOnSignals } from './shutdown.js';

async function main() {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const db = await openDuckDB({ threads: config.DUCKDB_THREADS, memoryLimit: config.DUCKDB_MEMORY_LIMIT });
  const conn = await db.connect();
  const catalog = await loadCatalog(conn, config.DATA_DIR);
  const queries = await QueryPool.open(db, config.QUERY_CONCURRENCY, config.QUERY_TIMEOUT_MS, sqlFile('indicators/macros.sql'));
  const auth = await createAuth(config);
  const lifecycle: Lifecycle = { shuttingDown: false };
  const app = createApp({ config, catalog, queries, auth, logger, lifecycle });

  const server = app.listen(config.PORT, config.HOST, () => {
    const { port } = server.address() as AddressInfo;
    const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
    const url = `http://${host}:${port}/`;
    logger.info({ url, build_id: catalog.manifest.build_id, cities: catalog.cities.length, data_dir: config.DATA_DIR }, 'listening');
    // The how-to is for a person at a terminal (make run), not for the log collector.
    if (!process.stdout.isTTY) return;
    console.log(
      [
        `Climate projection service listening on ${url}`,
        `  data build ${catalog.manifest.build_id} (${catalog.cities.length} cities) from ${config.DATA_DIR}`,
        `  get a token: make user EMAIL=you@example.com PASSWORD='choose-one'   (prints the token last)`,
        `    or, for an existing account: curl -X POST -d email=... -d password=... http://${host}:${port}/api-token-auth/`,
        `  then: curl -H "Authorization: Token <token>" http://${host}:${port}/api/city/`,
        `  API documentation: http://${host}:${port}/docs/ (OpenAPI document: /openapi.json)`,
      ].join('\n'),
    );
  });

  shutDownOnSignals(server, {
    lifecycle,
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    logger,
    release: async () => {
      await auth.close();
      queries.close();
      conn.closeSync();
      db.closeSync();
    },
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
