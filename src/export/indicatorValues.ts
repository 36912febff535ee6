import type { DuckDBConnection } from '@duckdb/node-api';
import type { QueryPool } from '../db/queryPool.js';
import { sqlFile } from '../db/sqlFiles.js';
import { resultRead } from './resultMemory.js';
import { ServiceError } from '../errors.js';
import { indicatorRowsOfCells } from '../indicators/indicatorData.js';
import { MOST_CELLS } from '../indicators/query.js';
import type { Catalog } from '../reference/catalog.js';
import { planIndicator, yearsOfScenario, type ExportPlan } from './exportPlan.js';
import type { NetcdfFile } from './netcdfThread.js';
import { FILL, type NetcdfVariableHeader } from './netcdfWriter.js';
import type { PlaceGrid } from './placeGrid.js';

/** One indicator of one scenario as its rows in `export_indicator_rows` name it. */
export interface IndicatorColumns {
  name: string;
  units: string;
  label: string;
  /** The periods in the order the endpoint answers them; rows hold their positions. */
  periods: string[];
}

/**
 * Each model's indicator values of one scenario, through the function the indicator endpoints
 * answer with (indicatorRowsOfCells), one model and a group of cells at a time: the endpoint asked
 * for that model alone answers the same number as every statistic across models, so the files
 * equal its answers whatever the endpoints compute inside. The values go to DuckDB's table
 * `export_indicator_rows` (sql/export/indicator_rows_table.sql) as each group is computed, so that
 * memory holds one group's answers; DuckDB keeps the table (and spills it past its memory limit).
 * `step` reports each group.
 */
export async function collectIndicatorRows(catalog: Catalog, queries: QueryPool, plan: ExportPlan, scenario: ExportPlan['scenarios'][number], places: PlaceGrid, step: () => Promise<void>): Promise<IndicatorColumns[]> {
  if (plan.what.kind !== 'indicators') throw new Error('collectIndicatorRows: the plan exports raw variables');
  const dataset = catalog.datasetByName.get(plan.dataset)!;
  await queries.run((conn) => conn.run(sqlFile('export/indicator_rows_table.sql')));
  const out: IndicatorColumns[] = [];
  for (const [i, ind] of plan.what.indicators.entries()) {
    const whole = planIndicator(catalog, dataset, scenario, yearsOfScenario(plan.years, scenario.name), ind, i);
    const periods: string[] = [];
    const periodAt = new Map<string, number>();
    for (const [m, model] of scenario.models.entries()) {
      const one = { ...whole, models: [model] };
      for (let g = 0; g < places.cellIds.length; g += MOST_CELLS) {
        const group = places.cellIds.slice(g, g + MOST_CELLS);
        const rows = await indicatorRowsOfCells(catalog, queries, one, group);
        await queries.run(async (conn: DuckDBConnection) => {
          const appender = await conn.createAppender('export_indicator_rows');
          rows.forEach((r, k) => {
            if (r instanceof ServiceError) throw r;
            for (const { period, stats } of r) {
              let at = periodAt.get(period);
              if (at === undefined) {
                at = periods.push(period) - 1;
                periodAt.set(period, at);
              }
              const v = stats[0]?.[1] ?? null;
              if (v === null || !Number.isFinite(v)) continue;
              appender.appendInteger(i);
              appender.appendInteger(m);
              appender.appendInteger(g + k);
              appender.appendInteger(at);
              appender.appendDouble(v);
              appender.endRow();
            }
          });
          appender.closeSync();
        });
        await step();
      }
    }
    out.push({ name: whole.meta.name, units: whole.units, label: whole.meta.label, periods });
  }
  return out;
}

/** The indicators as NetCDF variables: one `period` dimension if they share their periods, else one each. */
export function indicatorNetcdfHeaders(found: IndicatorColumns[]): NetcdfVariableHeader[] {
  const same = found.every((f) => JSON.stringify(f.periods) === JSON.stringify(found[0]!.periods));
  return found.map((f) => ({ name: f.name, axis: { dim: same ? 'period' : `period_${f.name}`, values: f.periods }, attrs: { units: f.units, long_name: f.label }, wide: true }));
}

type TypedVector = { items: Int32Array | Float64Array };

/**
 * The collected rows into the NetCDF file, one (indicator, model, cell) series at a time, read
 * back from DuckDB in that order as a stream of chunks.
 */
export async function writeIndicatorNetcdf(queries: QueryPool, found: IndicatorColumns[], places: PlaceGrid, writer: NetcdfFile, signal?: AbortSignal): Promise<void> {
  await queries.run(async (conn) => {
    const result = await conn.stream(sqlFile('export/indicator_series.sql'));
    let series: Float64Array | undefined;
    let current = { indicator: -1, model: -1, cell: -1 };
    const flush = async () => {
      if (!series) return;
      for (const position of places.positionsOf(places.cellIds[current.cell]!)) await writer.writeSeries(current.indicator, current.model, position, series);
    };
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      const column = (c: number) => (chunk.getColumnVector(c) as unknown as TypedVector).items as Int32Array;
      const [indicator, model, cell, period] = [column(0), column(1), column(2), column(3)];
      const value = (chunk.getColumnVector(4) as unknown as TypedVector).items as Float64Array;
      for (let r = 0; r < chunk.rowCount; r++) {
        if (indicator[r] !== current.indicator || model[r] !== current.model || cell[r] !== current.cell) {
          await flush();
          current = { indicator: indicator[r]!, model: model[r]!, cell: cell[r]! };
          series = new Float64Array(found[current.indicator]!.periods.length).fill(FILL);
        }
        series![period[r]!] = value[r]!;
      }
      // Four INTEGER columns and a DOUBLE.
      resultRead(chunk.rowCount * 24);
    }
    await flush();
  }, signal);
}
