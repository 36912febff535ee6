import fs from 'node:fs';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { BuildProgress } from './climate/buildProgress.js';
import { checkCellFiles } from './dataBuild/buildCheck.js';
import { climateFile } from './dataBuild/files.js';
import type { Config } from './config.js';
import { openDuckDB, type Database } from './db/duckdb.js';
import { QueryPool } from './db/queryPool.js';
import { sqlFile } from './db/sqlFiles.js';
import type { Logger } from './logger.js';
import { loadCatalog, type Catalog } from './reference/catalog.js';

/**
 * One data build being served: its DuckDB instance, catalog, query pool and the app over them.
 * The server holds one at a time; a reload (SIGHUP) opens the next, switches new requests to it,
 * and closes the previous one once its last request has finished.
 */
export interface DataGeneration {
  /** The build folder, symlinks resolved: requests of this generation never read another. */
  dir: string;
  catalog: Catalog;
  progress: BuildProgress;
  queries: QueryPool;
  db: Database;
  handler: Express;
}

/**
 * Opens the build DATA_DIR names now (a symlink is followed once, here). With `requireComplete`
 * (a reload, which must not trade a served build for a broken one), a build without manifest.json
 * is refused, and so is one whose cell files are not all whole and readable (checkCellFiles). A
 * manifest of a format this service cannot read is refused always; a probe query on one climate
 * file must answer. Throws with what is wrong; nothing stays open then.
 */
export async function openGeneration(
  config: Pick<Config, 'DATA_DIR' | 'DUCKDB_THREADS' | 'DUCKDB_MEMORY_LIMIT' | 'QUERY_CONCURRENCY' | 'QUERY_TIMEOUT_MS'>,
  makeHandler: (g: Omit<DataGeneration, 'handler'>) => Express,
  requireComplete: boolean,
): Promise<DataGeneration> {
  let dir: string;
  try {
    dir = fs.realpathSync(config.DATA_DIR);
  } catch {
    throw new Error(`DATA_DIR ${config.DATA_DIR} does not exist.`);
  }
  if (requireComplete && !fs.existsSync(`${dir}/manifest.json`)) throw new Error(`${dir} holds no complete data build (no manifest.json).`);
  const db = await openDuckDB({ threads: config.DUCKDB_THREADS, memoryLimit: config.DUCKDB_MEMORY_LIMIT });
  let queries: QueryPool | undefined;
  try {
    const conn = await db.connect();
    let catalog: Catalog;
    try {
      catalog = await loadCatalog(conn, dir);
    } finally {
      conn.closeSync();
    }
    const progress = new BuildProgress(dir);
    if (requireComplete) await checkCellFiles(dir, catalog.manifest, catalog.mapCells);
    queries = await QueryPool.open(db, config.QUERY_CONCURRENCY, config.QUERY_TIMEOUT_MS, sqlFile('indicators/macros.sql'));
    if (progress.complete()) await probe(catalog, queries);
    const parts = { dir, catalog, progress, queries, db };
    return { ...parts, handler: makeHandler(parts) };
  } catch (err) {
    queries?.close();
    await db.close();
    throw err;
  }
}

/**
 * A climate file of the build answers a query: the first city's cell of the first dataset with
 * one. A build without climate data (reference data only, DATA_CITIES=0) has nothing to probe.
 */
async function probe(catalog: Catalog, queries: QueryPool) {
  for (const [, cells] of catalog.cityCells) {
    for (const [dataset, cellId] of cells) {
      const file = climateFile(catalog.dataDir, dataset, 'historical', cellId) ?? climateFile(catalog.dataDir, dataset, 'RCP85', cellId);
      if (!file) continue;
      await queries.run((c) => c.run(sqlFile('ops/probe_climate_file.sql'), { file }));
      return;
    }
  }
}

/**
 * The request listener of the current generation, counting each generation's requests in flight
 * so that a replaced one is closed only after its last response.
 */
export class GenerationSwitch {
  private inFlight = new Map<DataGeneration, number>();
  private retired = new Set<DataGeneration>();

  constructor(
    private current: DataGeneration,
    private readonly logger: Logger,
  ) {}

  get generation(): DataGeneration {
    return this.current;
  }

  readonly listener: RequestListener = (req: IncomingMessage, res: ServerResponse) => {
    const g = this.current;
    this.inFlight.set(g, (this.inFlight.get(g) ?? 0) + 1);
    res.once('close', () => this.finished(g));
    g.handler(req, res);
  };

  /** New requests go to `next`; the previous generation closes when its requests are done. */
  switchTo(next: DataGeneration) {
    const previous = this.current;
    this.current = next;
    this.retired.add(previous);
    if (!this.inFlight.get(previous)) this.close(previous);
  }

  private finished(g: DataGeneration) {
    const n = (this.inFlight.get(g) ?? 1) - 1;
    if (n > 0) this.inFlight.set(g, n);
    else this.inFlight.delete(g);
    if (n <= 0 && this.retired.has(g)) this.close(g);
  }

  private close(g: DataGeneration) {
    this.retired.delete(g);
    g.queries.close();
    void g.db.close();
    this.logger.info({ build_id: g.catalog.manifest.build_id, data_dir: g.dir }, 'closed the previous data build');
  }

  /** Closes the current generation (shutdown, after every request has finished). */
  closeAll() {
    this.close(this.current);
    for (const g of [...this.retired]) this.close(g);
  }
}
