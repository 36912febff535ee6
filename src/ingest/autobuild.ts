import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { AutobuildMessage } from './autobuildProcess.js';

/** The entry of the build process beside this module: .ts under tsx, .js from dist/. */
const ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), `autobuildProcess${path.extname(fileURLToPath(import.meta.url))}`);

/**
 * Starts building the default data into DATA_DIR in a child process (so that the server's event
 * loop stays free), logging its progress. A failed build ends the server with status 1: it would
 * otherwise answer 503 for ever; the build resumes on the next start. Returns a function that
 * stops the build (on shutdown) and resolves once the build process is gone: a server started
 * right after this one exits would otherwise find the build still locked by it.
 */
export function startAutobuild(config: Pick<Config, 'DATA_DIR'>, logger: Logger): () => Promise<void> {
  // execArgv is inherited, so under tsx the child loads TypeScript too.
  const child = fork(ENTRY, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let stopping = false;
  logger.info({ data_dir: config.DATA_DIR, build_pid: child.pid }, 'building the default data while serving (DATA_AUTOBUILD=on)');
  child.on('message', (message: AutobuildMessage) => {
    if ('line' in message) logger.info({ data_build: true }, message.line.trim());
    else for (const line of message.failed) logger.fatal({ data_build: true }, line);
  });
  child.on('exit', (code, signal) => {
    if (stopping) return;
    if (code === 0) {
      logger.info({ data_dir: config.DATA_DIR }, 'the default data is complete');
      return;
    }
    logger.fatal({ code, signal }, 'the default data build stopped before it was complete; fix the cause and start again: it resumes where it stopped');
    process.exit(1);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return async () => {
    stopping = true;
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await exited;
  };
}
