import fs from 'node:fs';
import path from 'node:path';
import { listValue, STRUCT, INTEGER, structValue, LIST, type DuckDBConnection } from '@duckdb/node-api';
import { cellPath } from '../climate/files.js';
import { sqlFile, sqlString } from '../db/sqlFiles.js';

export interface CellRef {
  dataDir: string;
  dataset: string;
  scenario: string;
  cellId: number;
}

const RANGE = STRUCT({ start_year: INTEGER, end_year: INTEGER });

/**
 * (Re)writes the monthly and ensemble summaries of one cell and scenario from its daily file (and,
 * for the heat-wave series, the cell's historical file). Call it whenever a daily file changes;
 * the historical scenario's summaries must be written before the other scenarios' of the cell.
 * Each file is written beside its target and renamed over it, so readers see the old or the new.
 * The database must have the indicator macros loaded (loadSummaryMacros), once: concurrent
 * CREATE OR REPLACE MACRO from several connections conflict.
 */
export async function writeCellSummaries(conn: DuckDBConnection, cell: CellRef, historicRanges: { start_year: number; end_year: number }[]) {
  const file = cellPath(cell.dataDir, 'climate', cell.dataset, cell.scenario, cell.cellId);
  const historic = cellPath(cell.dataDir, 'climate', cell.dataset, 'historical', cell.cellId);
  const hasHistoric = fs.existsSync(historic);
  const ranges = listValue(historicRanges.map((r) => structValue({ start_year: r.start_year, end_year: r.end_year })));
  await copyAtomically(conn, sqlFile('build/monthly_summary.sql'), cellPath(cell.dataDir, 'monthly', cell.dataset, cell.scenario, cell.cellId), {
    file,
    historic: hasHistoric ? historic : file,
    has_historic: hasHistoric,
    ranges,
  }, { ranges: LIST(RANGE) });
  await copyAtomically(conn, sqlFile('build/ensemble_daily.sql'), cellPath(cell.dataDir, 'ensemble', cell.dataset, cell.scenario, cell.cellId), { file });
}

/** The macros the summaries use (run_summary, in_date_order): sql/indicators/macros.sql. */
export async function loadSummaryMacros(conn: DuckDBConnection) {
  await conn.run(sqlFile('indicators/macros.sql'));
}

async function copyAtomically(conn: DuckDBConnection, select: string, target: string, params: Record<string, unknown>, types?: Record<string, unknown>) {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const tmp = `${target}.tmp-${process.pid}`;
  // COPY takes no parameter for its target; the path is the build's own, not user input.
  await conn.run(`COPY (${select}) TO ${sqlString(tmp)} (FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION V2)`, params as never, types as never);
  fs.renameSync(tmp, target);
}
