import type { Server, ServerResponse } from 'node:http';
import type { Lifecycle } from './http/opsRoutes.js';
import type { Logger } from './logger.js';

export interface ShutdownOptions {
  lifecycle: Lifecycle;
  /** SHUTDOWN_TIMEOUT_MS: past it the process exits with status 1 even if requests are unfinished. */
  timeoutMs: number;
  logger: Logger;
  /** Releases what the server holds (DuckDB, the accounts store) once every request has finished. */
  release: () => Promise<void>;
}

/**
 * On SIGTERM or SIGINT: stop accepting connections, let in-flight requests finish, release the
 * data stores and exit 0; exit 1 at the deadline or on a second signal. Node's server.close()
 * waits for every connection to end, and a keep-alive connection would stay open after its last
 * response, so responses during the shutdown carry `Connection: close` and connections are
 * closed as soon as they become idle.
 */
export function shutDownOnSignals(server: Server, { lifecycle, timeoutMs, logger, release }: ShutdownOptions) {
  const open = new Set<ServerResponse>();
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (lifecycle.shuttingDown) res.setHeader('Connection', 'close');
    open.add(res);
    res.once('close', () => {
      open.delete(res);
      if (lifecycle.shuttingDown) server.closeIdleConnections();
    });
  });

  const stop = (signal: NodeJS.Signals) => {
    if (lifecycle.shuttingDown) {
      logger.warn({ signal, in_flight: open.size }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    lifecycle.shuttingDown = true;
    for (const res of open) if (!res.headersSent) res.setHeader('Connection', 'close');
    const deadline = setTimeout(() => {
      logger.error({ in_flight: open.size, timeout_ms: timeoutMs }, 'shutdown deadline passed: exiting with requests unfinished');
      process.exit(1);
    }, timeoutMs);
    server.close(() => {
      clearTimeout(deadline);
      release().then(
        () => {
          logger.info('stopped');
          process.exit(0);
        },
        (err: unknown) => {
          logger.error({ err }, 'could not close the data stores');
          process.exit(1);
        },
      );
    });
    server.closeIdleConnections();
    // After close(): once this line is out, new connections are refused.
    logger.info({ signal, in_flight: open.size, timeout_ms: timeoutMs }, 'shutting down: finishing in-flight requests');
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
