import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { IndicatorVariables } from '../indicators/params.js';

/**
 * The map files: per (dataset, scenario, indicator) at its default parameters, each model's yearly
 * value of the indicator in every cell with data, so that a map reads one value per (cell, model,
 * year) instead of the days. Written at build, ingest and `make summaries` (writeMapFiles.ts), read
 * by mapFileValues.ts. Rows (cell_id, model, year, value) sorted by cell, model and year in small
 * row groups, so that a box reads only its cells' groups. A year without a value has its row,
 * with a null: a cell is in a file exactly when the file's values were computed for it.
 *
 *   maps/<dataset>/<scenario>/<indicator>-<key>.parquet
 *
 * The key is a hash of what the values depend on besides the days (units and the indicator's own
 * parameters, the historic range among them), so that a file is only ever read for the request
 * it was written for: a build whose default historic range changed has files of another key,
 * and its maps read the days until they are written again.
 */
export const MAP_FILES_DIR = 'maps';

/** What a file's values were computed with: the request's units and the indicator's own parameters. */
export function mapFileKey(units: string, vars: IndicatorVariables): string {
  const { threshold, comparator, basetemp, percentile, n, historicRange } = vars;
  const range = historicRange ? [historicRange.start_year, historicRange.end_year] : undefined;
  const text = JSON.stringify({ units, threshold, comparator, basetemp, percentile, n, range });
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
