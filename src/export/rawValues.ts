import { listValue } from '@duckdb/node-api';
import type { Variable } from '../climate/params.js';
import { VARIABLE_UNITS } from '../climate/tableLabels.js';
import { climateFile } from '../dataBuild/files.js';
import type { QueryPool } from '../db/queryPool.js';
import { sqlFile } from '../db/sqlFiles.js';
import type { ExportPlan } from './exportPlan.js';
import type { NetcdfVariable } from './netcdfWriter.js';
import { daysSince1950, type PlaceGrid } from './placeGrid.js';

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

/** Cells per statement: a group's rows (cells x models x days) are read into memory at once. */
const CELLS_PER_READ = 16;

/**
 * Every model's daily values of one scenario at the plan's places, as the NetCDF arrays hold them:
 * NaN on days a model's calendar lacks or a cell has no data. `step` reports each group read.
 */
export async function rawNetcdfVariables(dataDir: string, queries: QueryPool, plan: ExportPlan, scenario: ExportPlan['scenarios'][number], places: PlaceGrid, step: () => Promise<void>, signal?: AbortSignal): Promise<{ days: number[]; variables: NetcdfVariable[] }> {
  if (plan.what.kind !== 'variables') throw new Error('rawNetcdfVariables: the plan exports indicators');
  const variables = plan.what.variables;
  const days = daysSince1950(scenario.years);
  const first = days[0]!;
  // Day since 1950 -> position on the time axis (the years asked for need not be consecutive).
  const slot = new Int32Array(days[days.length - 1]! - first + 1).fill(-1);
  days.forEach((d, i) => (slot[d - first] = i));
  const models = scenario.models;
  const size = models.length * days.length * places.size;
  const arrays = variables.map(() => new Float32Array(size).fill(Number.NaN));
  const sql = sqlFile('export/raw_cells.sql').replaceAll('{{variables}}', variables.join(', '));
  const cells = places.cellIds.filter((id) => climateFile(dataDir, plan.dataset, scenario.name, id) !== undefined);
  for (let g = 0; g < cells.length; g += CELLS_PER_READ) {
    const group = cells.slice(g, g + CELLS_PER_READ);
    const files = group.map((id) => climateFile(dataDir, plan.dataset, scenario.name, id)!);
    const cols = await queries.run(async (conn) => (await conn.runAndReadAll(sql, { files: listValue(files), models: listValue(models), years: listValue(scenario.years) } as never)).getColumnsJS() as unknown[][], signal);
    const [fileIndex = [], modelIndex = [], day = []] = cols as number[][];
    for (let r = 0; r < fileIndex.length; r++) {
      const t = slot[day[r]! - first]!;
      for (const position of places.positionsOf(group[fileIndex[r]!]!)) {
        const at = places.index(modelIndex[r]!, t, position, days.length);
        for (let k = 0; k < variables.length; k++) {
          const v = (cols[3 + k] as (number | null)[])[r];
          if (v !== null && v !== undefined) arrays[k]![at] = v;
        }
      }
    }
    await step();
  }
  return {
    days,
    variables: variables.map((v, k) => ({ name: v, axis: { dim: 'time', values: days }, attrs: rawAttrs(v), values: arrays[k]! })),
  };
}
