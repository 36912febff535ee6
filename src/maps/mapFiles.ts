import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { IndicatorVariables } from '../indicators/params.js';

/**
 * The map files: per (dataset, scenario, indicator) at its default parameters, each model's yearly
 * value of the indicator in every cell with data, so that a map reads one value per (cell, model,
 * year) instead of the days. Written at build, ingest, `make summaries` and `make map-files`
 * (writeMapFiles.ts), read by mapFileValues.ts. A row per cell and model (cell_id, model,
 * first_year, vals, ascending), sorted by cell and model in small row groups, so that a box reads
 * only its cells' groups. A series of whole numbers (counts, whose sums are exact in any order) is
 * `vals`, its values of consecutive years from first_year (a null where a year has no value or no
 * row), and a window is a slice of it; any other is `ascending`, its non-null values in ascending
 * order with their years ({v, y}), and a window is the list filtered by year, already in the order
 * its mean adds them: sorting each model's window at every request was half of a large map's time,
 * and a row of yearly values per year took 10 times as long to read and group. The other column is
 * null. A cell is in a file exactly when the file's values were computed for it.
 *
 *   maps/<dataset>/<scenario>/<indicator>-<key>.parquet
 *
 * The key is a hash of the layout and of what the values depend on besides the days (units and the indicator's own
 * parameters, the historic range among them), so that a file is only ever read for the request
 * it was written for: a build whose default historic range changed has files of another key,
 * and its maps read the days until they are written again.
 */
export const MAP_FILES_DIR = 'maps';

/** The files' layout, in their key: a file of another layout is never read, and is replaced when they are written. */
const MAP_FILE_LAYOUT = 3;

/** What a file's values were computed with: the request's units and the indicator's own parameters. */
export function mapFileKey(units: string, vars: IndicatorVariables): string {
  const { threshold, comparator, basetemp, percentile, n, historicRange } = vars;
  const range = historicRange ? [historicRange.start_year, historicRange.end_year] : undefined;
  const text = JSON.stringify({ layout: MAP_FILE_LAYOUT, units, threshold, comparator, basetemp, percentile, n, range });
  return createHash('sha1').update(text).digest('hex').slice(0, 12);
}

export function mapFilePath(dataDir: string, dataset: string, scenario: string, indicator: string, key: string): string {
  return path.join(dataDir, MAP_FILES_DIR, dataset, scenario, `${indicator}-${key}.parquet`);
}

/** The map file of a request, when the build has one. */
export function existingMapFile(dataDir: string, dataset: string, scenario: string, indicator: string, units: string, vars: IndicatorVariables): string | undefined {
  const file = mapFilePath(dataDir, dataset, scenario, indicator, mapFileKey(units, vars));
  return fs.existsSync(file) ? file : undefined;
}
