import fs from 'node:fs';
import path from 'node:path';
import { createServer, type RequestListener } from 'node:http';
import type { Express } from 'express';
import type { AddressInfo } from 'node:net';
import { createApp, exportJobs } from './app.js';
import { LocalExports } from './export/exportJobs.js';
import { createAuth } from './auth/index.js';
import { AppObjects } from './http/appObjects.js';
import { createThrottleStores } from './http/throttleStore.js';
import { buildFile } from './dataBuild/files.js';
import { loadConfig, type Config } from './config.js';
import { GenerationSwitch, openGeneration, type DataGeneration } from './dataGeneration.js';
import type { Lifecycle } from './http/opsRoutes.js';
import { startingHandler } from './http/startingHandler.js';
import { startAutobuild } from './ingest/autobuild.js';
import { createLogger, type Logger } from './logger.js';
import { shutDownOnSignals } from './shutdown.js';

/** Resolves once the data build has a catalog to serve: a manifest, or the plan of a build in progress. */
async function catalogWritten(dataDir: string): Promise<void> {
  while (!fs.existsSync(buildFile.manifest(dataDir)) && !fs.existsSync(buildFile.plan(dataDir))) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function main() {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  // Until the data build is served, a SIGHUP has nothing to reload (and must not end the process,
  // which is what it does without a handler).
  let onHangup = () => logger.warn('SIGHUP: the server is still starting; ignored');
  process.on('SIGHUP', () => onHangup());
  const complete = fs.existsSync(buildFile.manifest(config.DATA_DIR));
  let stopBuild = async () => {};
  if (!complete && config.DATA_AUTOBUILD === 'on') {
    stopBuild = startAutobuild(config, logger);
  } else if (!complete && !fs.existsSync(buildFile.plan(config.DATA_DIR))) {
    throw new Error(`No data build at ${config.DATA_DIR} (missing manifest.json). Run \`make run\` (it builds the default data while serving) or \`make data\`, or set DATA_DIR.`);
  } else if (!complete) {
    logger.warn({ data_dir: config.DATA_DIR }, 'DATA_DIR holds an unfinished build and DATA_AUTOBUILD is off: its unbuilt cells answer 503 until another process completes it');
  }

  // On a first start the catalog takes seconds to write: a placeholder answers until it is loaded.
  let handler: RequestListener = startingHandler(() => 'The server is starting: the default data\'s reference catalog is being written (a few seconds on a first start).');
  const objects = new AppObjects();
  const server = createServer(objects.serverOptions, (req, res) => handler(req, res));
  let url = '';
  const listen = async () => {
    await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
    const { port } = server.address() as AddressInfo;
    const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
    url = `http://${host}:${port}/`;
    logger.info({ url, data_dir: config.DATA_DIR }, 'listening');
  };
  const catalogMissing = !fs.existsSync(buildFile.manifest(config.DATA_DIR)) && !fs.existsSync(buildFile.plan(config.DATA_DIR));
  if (catalogMissing) await listen();

  await catalogWritten(config.DATA_DIR);
  const throttleStores = await createThrottleStores(config, logger);
  const auth = await createAuth(config, throttleStores);
  const lifecycle: Lifecycle = { shuttingDown: false };
  // One set of export jobs for every data build this process serves; each export reads the build served when it starts.
  let switcher: GenerationSwitch | undefined;
  const exports = exportJobs(config, () => switcher!.generation.catalog);
  const app = (g: Omit<DataGeneration, 'handler'>) =>
    createApp({ config, catalog: g.catalog, queries: g.queries, auth, logger, lifecycle, progress: g.progress, throttleStores, exports });
  const generations = new GenerationSwitch(await openGeneration(config, app, false), logger);
  switcher = generations;
  if (exports.scheduler instanceof LocalExports) exports.scheduler.resume();
  const { catalog, progress } = generations.generation;
  objects.serve(generations.generation.handler);
  handler = generations.listener;
  if (!catalogMissing) await listen();
  logger.info({ build_id: catalog.manifest.build_id, data_dir: generations.generation.dir, cities: catalog.cities.length, complete: progress.complete() }, 'serving the data build');
  if (catalog.staleSummaries.size > 0) {
    logger.warn({ datasets: [...catalog.staleSummaries] }, 'the monthly summaries of these datasets are of an older format: their indicators answer 503 until `make summaries` rewrites them');
  }
  if (config.PID_FILE) writePidFile(config.PID_FILE);
  onHangup = () => void reload(config, generations, objects, app, logger);

  // The how-to is for a person at a terminal (make run), not for the log collector.
  if (process.stdout.isTTY) {
    console.log(
      [
        `Climate projection service listening on ${url}`,
        `  data build ${catalog.manifest.build_id} (${catalog.cities.length} cities) from ${config.DATA_DIR}` +
          (progress.complete() ? '' : `\n  the climate data is still being built (most populous cities first): GET ${url}readyz shows how far`),
        `  get a token: make user EMAIL=you@example.com PASSWORD='choose-one'   (prints the token last)`,
        `    or, for an existing account: curl -X POST -d email=... -d password=... ${url}api-token-auth/`,
        `  then: curl -H "Authorization: Token <token>" ${url}api/city/`,
        `  API documentation: ${url}docs/ (OpenAPI document: ${url}openapi.json)`,
      ].join('\n'),
    );
  }

  shutDownOnSignals(server, {
    lifecycle,
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    logger,
    release: async () => {
      await stopBuild();
      await auth.close();
      await throttleStores.close();
      await exports.scheduler.close();
      generations.closeAll();
      if (config.PID_FILE) fs.rmSync(config.PID_FILE, { force: true });
    },
  });
}

function writePidFile(file: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${process.pid}\n`);
}

let reloading = false;

/**
 * SIGHUP (make reload): serve the build DATA_DIR names now (a symlink repointed), if it opens,
 * is complete and answers a probe query; else keep serving the current one. One reload at a time;
 * a SIGHUP during one is ignored (send another once it is logged as done).
 */
async function reload(config: Config, generations: GenerationSwitch, objects: AppObjects, app: (g: Omit<DataGeneration, 'handler'>) => Express, logger: Logger) {
  const current = generations.generation;
  if (reloading) return logger.warn('SIGHUP: a reload is already under way; ignored');
  if (!current.progress.complete()) return logger.warn({ data_dir: current.dir }, 'SIGHUP: the data build being served is not complete yet; reload refused');
  reloading = true;
  try {
    const next = await openGeneration(config, app, true);
    if (next.catalog.manifest.build_id === current.catalog.manifest.build_id && next.dir === current.dir) {
      next.queries.close();
      await next.db.close();
      logger.info({ build_id: current.catalog.manifest.build_id, data_dir: current.dir }, 'SIGHUP: DATA_DIR still holds the build being served; nothing to do');
      return;
    }
    generations.switchTo(next);
    objects.serve(next.handler);
    logger.info({ build_id: next.catalog.manifest.build_id, data_dir: next.dir, previous_build_id: current.catalog.manifest.build_id }, 'serving the data build');
  } catch (err) {
    logger.error({ err: err instanceof Error ? err.message : String(err), data_dir: config.DATA_DIR, build_id: current.catalog.manifest.build_id }, 'SIGHUP: the new data build was refused; still serving the current one');
  } finally {
    reloading = false;
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
