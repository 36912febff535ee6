import type { DuckDBMaterializedResult } from '@duckdb/node-api';
import { listValue } from '@duckdb/node-api';
import type { Variable } from '../climate/params.js';
import { VARIABLE_UNITS } from '../climate/tableLabels.js';
import { climateFile } from '../dataBuild/files.js';
import type { QueryPool } from '../db/queryPool.js';
import { sqlFile } from '../db/sqlFiles.js';
import type { ExportPlan } from './exportPlan.js';
import type { NetcdfFile } from './netcdfThread.js';
import { FILL, type NetcdfVariableHeader } from './netcdfWriter.js';
import { daysSince1950, type PlaceGrid } from './placeGrid.js';
import { resultRead } from './resultMemory.js';

/** CF names of the raw variables; a variable missing here still exports, named by itself. */
const CF: Partial<Record<Variable, { standard_name: string; long_name: string }>> = {
  tasmax: { standard_name: 'air_temperature', long_name: 'Daily Maximum Near-Surface Air Temperature' },
  tasmin: { standard_name: 'air_temperature', long_name: 'Daily Minimum Near-Surface Air Temperature' },
  pr: { standard_name: 'precipitation_flux', long_name: 'Precipitation' },
  tas: { standard_name: 'air_temperature', long_name: 'Daily Near-Surface Air Temperature' },
  hurs: { standard_name: 'relative_humidity', long_name: 'Near-Surface Relative Humidity' },
  huss: { standard_name: 'specific_humidity', long_name: 'Near-Surface Specific Humidity' },
};

export const rawAttrs = (v: Variable): Record<string, string> => ({ units: VARIABLE_UNITS[v], ...(CF[v] ?? { long_name: v }) });

/** The raw variables of one scenario as the NetCDF file declares them: float32 on every day of its years. */
export function rawNetcdfHeaders(plan: ExportPlan, scenario: ExportPlan['scenarios'][number]): NetcdfVariableHeader[] {
  if (plan.what.kind !== 'variables') throw new Error('rawNetcdfHeaders: the plan exports indicators');
  const days = daysSince1950(scenario.years);
  return plan.what.variables.map((v) => ({ name: v, axis: { dim: 'time', values: days }, attrs: rawAttrs(v), wide: false }));
}

/** The typed arrays of a vector (INTEGER: Int32Array, FLOAT: Float32Array); the query leaves no NULL. */
type TypedVector = { items: Int32Array | Float32Array };

/**
 * Every model's daily values of one scenario at the plan's places, written into `writer` one cell
 * at a time: DuckDB reads a cell's file while the previous cell's columns are copied, as typed
 * arrays, into one series per model and variable (FILL on days a model's calendar lacks). Memory
 * holds two cells' rows, whatever the export's size. `step` reports each cell.
 */
export async function writeRawNetcdf(dataDir: string, queries: QueryPool, plan: ExportPlan, scenario: ExportPlan['scenarios'][number], places: PlaceGrid, writer: NetcdfFile, step: () => Promise<void>, signal?: AbortSignal): Promise<void> {
  if (plan.what.kind !== 'variables') throw new Error('writeRawNetcdf: the plan exports indicators');
  const variables = plan.what.variables;
  const days = daysSince1950(scenario.years);
  const steps = days.length;
  const first = days[0]!;
  // Day since 1950 -> position on the time axis (the years asked for need not be consecutive).
  const slot = new Int32Array(days[steps - 1]! - first + 1).fill(-1);
  days.forEach((d, i) => (slot[d - first] = i));
  const models = scenario.models;
  const sql = sqlFile('export/raw_cell.sql').replaceAll('{{variables}}', variables.join(', '));
  const cells = places.cellIds.filter((id) => climateFile(dataDir, plan.dataset, scenario.name, id) !== undefined);
  const read = (cellId: number) =>
    queries.run((conn) => conn.run(sql, { file: climateFile(dataDir, plan.dataset, scenario.name, cellId)!, models: listValue(models), years: listValue(scenario.years) } as never), signal);
  const series = variables.map(() => new Float32Array(models.length * steps));
  let next = cells.length > 0 ? read(cells[0]!) : undefined;
  try {
  for (let c = 0; c < cells.length; c++) {
    const result: DuckDBMaterializedResult = await next!;
    next = c + 1 < cells.length ? read(cells[c + 1]!) : undefined;
    // A model without a row on a day keeps FILL there.
    for (const s of series) s.fill(FILL);
    for (let k = 0; k < result.chunkCount; k++) {
      const chunk = result.getChunk(k);
      const modelIndex = (chunk.getColumnVector(0) as unknown as TypedVector).items;
      const day = (chunk.getColumnVector(1) as unknown as TypedVector).items;
      const values = variables.map((_, v) => (chunk.getColumnVector(2 + v) as unknown as TypedVector).items);
      for (let r = 0; r < chunk.rowCount; r++) {
        const at = modelIndex[r]! * steps + slot[day[r]! - first]!;
        for (let v = 0; v < variables.length; v++) series[v]![at] = values[v]![r]!;
      }
    }
    for (const position of places.positionsOf(cells[c]!)) {
      for (let v = 0; v < variables.length; v++) {
        for (let m = 0; m < models.length; m++) await writer.writeSeries(v, m, position, series[v]!.subarray(m * steps, (m + 1) * steps));
      }
    }
    // model_index and day (INTEGER), and a FLOAT per variable.
    resultRead(result.rowCount * (8 + 4 * variables.length));
    await step();
  }
  } finally {
    // A stop (a DELETE, an error) leaves the read under way to end on its own.
    next?.catch(() => undefined);
  }
}
