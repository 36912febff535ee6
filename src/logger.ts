import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/**
 * JSON lines (one object per line) on stdout, for a log collector to parse; `destination` lets
 * tests read the lines. ISO timestamps rather than epoch milliseconds, so people can read them too.
 */
export function createLogger(level: Config['LOG_LEVEL'], destination?: DestinationStream): Logger {
  // Synchronous writes: pino's default stdout stream writes from libuv's thread pool, and a line
  // logged just before process.exit (the shutdown's 'stopped') was flushed on the main thread
  // ahead of one still in that pool, or could be lost with it. A write to a pipe costs microseconds.
  return pino({ level, timestamp: pino.stdTimeFunctions.isoTime }, destination ?? pino.destination({ dest: 1, sync: true }));
}
