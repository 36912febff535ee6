/**
 * The arguments `make ingest` and `make ingest-enqueue` share (DATASET, SRC, POINTS, BBOX, RANGE_CELLS, and the
 * configuration's DATA_DIR), read and checked the same way; a bad one prints the message and the
 * command's usage and exits with status 2.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.js';
import { parseBbox, type Bbox } from '../ingest/netcdf/cellSelection.js';
import { parsePoints } from '../ingest/netcdf/ingest.js';
import { DEFAULT_RANGE_CELLS } from '../ingest/netcdf/cellRanges.js';

export interface IngestArgs {
  config: Config;
  dataset: string;
  sources: string[];
  dataDir: string;
  points: { lat: number; lon: number }[];
  bbox?: Bbox;
  /** Target cells per range of the shuffle (cellRanges.ts); default DEFAULT_RANGE_CELLS. */
  rangeCells?: number;
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
    ({ values: args } = parseArgs({ options: { dataset: { type: 'string' }, src: { type: 'string' }, points: { type: 'string' }, bbox: { type: 'string' }, 'range-cells': { type: 'string' } } }));
  } catch (err) {
    usageError((err as Error).message, usage);
  }
  if (!args.dataset || !args.src) usageError('DATASET (--dataset) and SRC (--src) are required.', usage);
  try {
    const config = loadConfig();
    check(config);
    const bbox = parseBbox(args.bbox);
    const rangeCells = parseRangeCells(args['range-cells']);
    return {
      config,
      dataset: args.dataset,
      sources: args.src.split(',').map((s) => s.trim()),
      dataDir: path.resolve(config.DATA_DIR),
      points: parsePoints(args.points),
      ...(bbox ? { bbox } : {}),
      ...(rangeCells ? { rangeCells } : {}),
    };
  } catch (err) {
    usageError((err as Error).message, usage);
  }
}

function parseRangeCells(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`RANGE_CELLS takes a whole number of cells, 1 or more (the default is ${DEFAULT_RANGE_CELLS}); got '${text}'`);
  return n;
}
