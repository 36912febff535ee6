import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/**
 * JSON lines (one object per line) on stdout, for a log collector to parse; `destination` lets
 * tests read the lines. ISO timestamps rather than epoch milliseconds, so people can read them too.
 */
export function createLogger(level: Config['LOG_LEVEL'], destination?: DestinationStream): Logger {
  return pino({ level, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}
