import fs from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlFile } from '../db/sqlFiles.js';

/** The column of the monthly summaries holding the heat-wave series of the range starting in `startYear`. */
export const heatColumn = (startYear: number) => `heat_${Math.trunc(startYear)}`;

/**
 * The extreme events the monthly summaries count per month and historic range, at the indicator's
 * default percentile: days with `variable` above the threshold (tasmin: below) of historic_percentiles in
 * sql/indicators/macros.sql, the mean across models of each model's percentile over the range
 * (pr: wet days only). Column `<series>_<start year>` (eventColumn).
 */
export const EVENT_SERIES = [
  { series: 'extreme_heat', variable: 'tasmax', percentile: 99 },
  { series: 'extreme_cold', variable: 'tasmin', percentile: 1 },
  { series: 'extreme_precipitation', variable: 'pr', percentile: 99 },
] as const;

/** The column of the monthly summaries holding a month's events of `series` over the threshold of the range starting in `startYear`. */
export const eventColumn = (series: string, startYear: number) => `${series}_${Math.trunc(startYear)}`;

/** The columns of the monthly summaries the templates read besides the heat series (sql/build/monthly_summary.sql). */
const SUMMARY_COLUMNS = ['frost_days', 'max_tasmax', 'min_tasmin', 'sum_tasmax', 'n_tasmax', 'sum_tasmin', 'n_tasmin', 'sum_dtr', 'n_dtr', 'sum_pr', 'max_pr', ...Array.from({ length: 9 }, (_, i) => `rx${i + 2}day`), 'cooling_65f', 'heating_65f', 'afdd_year', 'afdd_offset_year', 'p50_tasmax_year', 'p50_tasmin_year', 'p50_pr_year', 'dry', 'not_wet', 'dry_year', 'not_wet_year'];

/**
 * The datasets whose monthly summaries lack a column the templates read (the sums came later) or a
 * heat column of one of their historic ranges: written by a service older than this one (one MAP
 * column `heat`), so the indicator templates cannot read them until `make summaries` rewrites them. One file per dataset is read (a few ms at start-up):
 * a build writes every summary with one version, and `make summaries` rewrites them all.
 */
export async function staleSummaryDatasets(conn: DuckDBConnection, dataDir: string, rangesOf: (dataset: string) => number[]): Promise<Set<string>> {
  const stale = new Set<string>();
  const monthly = path.join(dataDir, 'monthly');
  for (const dataset of fs.existsSync(monthly) ? fs.readdirSync(monthly) : []) {
    const file = firstParquet(path.join(monthly, dataset));
    if (!file) continue;
    const reader = await conn.runAndReadAll(sqlFile('catalog/parquet_columns.sql'), { file });
    const columns = new Set(reader.getColumnsJS()[0] as string[]);
    if ([...SUMMARY_COLUMNS, ...rangesOf(dataset).flatMap((start) => [heatColumn(start), `${heatColumn(start)}_year`, ...EVENT_SERIES.map((e) => eventColumn(e.series, start))])].some((name) => !columns.has(name))) stale.add(dataset);
  }
  return stale;
}

function firstParquet(datasetDir: string): string | undefined {
  for (const scenario of fs.readdirSync(datasetDir)) {
    const dir = path.join(datasetDir, scenario);
    const name = fs.statSync(dir).isDirectory() ? firstEntry(dir, (f) => f.endsWith('.parquet')) : undefined;
    if (name) return path.join(dir, name);
  }
  return undefined;
}

/** The first entry of a folder that `wanted` takes, read lazily: a region's folder holds 100,000s of cells. */
function firstEntry(dir: string, wanted: (name: string) => boolean): string | undefined {
  const handle = fs.opendirSync(dir);
  try {
    for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) if (wanted(entry.name)) return entry.name;
    return undefined;
  } finally {
    handle.closeSync();
  }
}
