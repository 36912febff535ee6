/**
 * The arguments `make ingest` and `make ingest-enqueue` share (DATASET, SRC, POINTS, BBOX, and the
 * configuration's DATA_DIR), read and checked the same way; a bad one prints the message and the
 * command's usage and exits with status 2.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.js';
import { parseBbox, type Bbox } from '../ingest/netcdf/cellSelection.js';
import { parsePoints } from '../ingest/netcdf/ingest.js';

export interface IngestArgs {
  config: Config;
  dataset: string;
  sources: string[];
  dataDir: string;
  points: { lat: number; lon: number }[];
  bbox?: Bbox;
}

export function usageError(message: string, usage: string): never {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}

/** `check` may refuse the configuration (a thrown Error's message is printed with the usage). */
export function readIngestArgs(usage: string, check: (config: Config) => void = () => {}): IngestArgs {
  let args;
  try {
    // make passes every flag as --name=value (a value may start with '-'), empty when its variable is unset.
    ({ values: args } = parseArgs({ options: { dataset: { type: 'string' }, src: { type: 'string' }, points: { type: 'string' }, bbox: { type: 'string' } } }));
  } catch (err) {
    usageError((err as Error).message, usage);
  }
  if (!args.dataset || !args.src) usageError('DATASET (--dataset) and SRC (--src) are required.', usage);
  try {
    const config = loadConfig();
    check(config);
    const bbox = parseBbox(args.bbox);
    return {
      config,
      dataset: args.dataset,
      sources: args.src.split(',').map((s) => s.trim()),
      dataDir: path.resolve(config.DATA_DIR),
      points: parsePoints(args.points),
      ...(bbox ? { bbox } : {}),
    };
  } catch (err) {
    usageError((err as Error).message, usage);
  }
}
