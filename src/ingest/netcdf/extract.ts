import fs from 'node:fs';
import type { ModelRun } from '../../reference/fixtures.js';
import type { Grid } from '../../reference/grids.js';
import { calendarDays, decodeTimes, isoDate, parseCalendar, yearOf } from './cfTime.js';
import { valueDecoder, type Variable } from './cfValues.js';
import { incompleteDays, modelDirectory, runMismatch } from './cmip6Checks.js';
import { LEFT_OUT_MODELS } from './cmip6Names.js';
import { identityFromAttributes, identityFromName } from './fileNames.js';
import { sniff, type GridFile } from './gridFile.js';
import { placeAxis, planReads, type CellTarget } from './gridPlacement.js';
import { Hdf5File } from './hdf5File.js';
import { IngestError } from './ingestError.js';
import { Netcdf3File } from './netcdf3File.js';

export interface ExtractContext {
  dataset: string;
  grid: Grid;
  /** The dataset's models in this data build. */
  models: string[];
  /** Scenario name -> [first, last] year it may hold in this dataset. */
  scenarioYears: Map<string, [number, number]>;
  /** CMIP6 datasets: each model's run (member, grid label, scenarios) that files must match; CMIP5: none recorded. */
  generation: 'CMIP5' | 'CMIP6';
  runs: ModelRun[];
  /** Cell ids to extract. */
  cells: number[];
}

export interface FileExtract {
  file: string;
  format: string;
  variable: Variable;
  model: string;
  scenario: string;
  calendar: string;
  /** Per time step, the date as days since 1970-01-01. */
  days: Int32Array;
  /** Cell id -> value per time step in storage units (NaN where missing); cells with no value at all are left out. */
  series: Map<number, Float32Array>;
  /** Target cells inside the file's grid, and of those the ones with no value at all (sea, masked). */
  cellsInFile: number;
  cellsEmpty: number;
  valuesRead: number;
}

export async function openGridFile(file: string): Promise<GridFile> {
  const kind = sniff(file);
  return kind === 'hdf5' ? Hdf5File.open(file) : new Netcdf3File(file);
}

const LAT_NAMES = ['lat', 'latitude', 'nav_lat', 'y'];
const LON_NAMES = ['lon', 'longitude', 'nav_lon', 'x'];
const TIME_NAMES = ['time', 't'];

/** The coordinate variable of a dimension: the dimension's own name if a 1-D variable has it, else a usual name. */
function coordinate(f: GridFile, dim: string, names: string[], length: number): string | undefined {
  const fits = (n: string) => {
    const v = f.variable(n);
    return v !== undefined && v.shape.length === 1 && v.shape[0] === length;
  };
  // The dimension's own coordinate variable, unless its name says it belongs to another axis.
  const other = [...LAT_NAMES, ...LON_NAMES, ...TIME_NAMES].filter((n) => !names.includes(n));
  if (dim !== '' && fits(dim) && !other.includes(dim.toLowerCase())) return dim;
  const all = f.variableNames();
  return names.map((n) => all.find((a) => a.toLowerCase() === n && fits(a))).find((n) => n !== undefined);
}

/** Reads the target cells' values from one file, chunk by chunk. Errors name the file. */
export async function extractFile(file: string, ctx: ExtractContext): Promise<FileExtract> {
  const fail = (problem: string): never => {
    throw new IngestError(`${file}: ${problem}`);
  };
  if (!fs.existsSync(file)) fail('no such file');
  let f: GridFile;
  try {
    f = await openGridFile(file);
  } catch (err) {
    if (err instanceof IngestError) throw err;
    return fail(`cannot be read as NetCDF: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    return extractFrom(f, file, ctx, fail);
  } catch (err) {
    if (err instanceof IngestError) throw err;
    return fail(err instanceof Error ? err.message : String(err));
  } finally {
    f.close();
  }
}

function extractFrom(f: GridFile, file: string, ctx: ExtractContext, fail: (problem: string) => never): FileExtract {
  const named = identityFromName(file);
  if (named.layout !== undefined && named.layout !== ctx.dataset) {
    fail(`the file name follows the ${named.layout} naming, but the ingest is for ${ctx.dataset} (DATASET=${ctx.dataset})`);
  }
  const dataVariables = f.variableNames().filter((n) => (f.variable(n)?.shape.length ?? 0) === 3);
  const attrs = identityFromAttributes(f.globalAttrs, ctx.models, dataVariables);
  const cmip6 = named.cmip6;
  if (cmip6 && named.variable === undefined) fail(`holds ${cmip6.variable}; the ingest reads tasmax, tasmin and pr`);
  if (cmip6?.aggregate) fail(`holds LOCA2 ${cmip6.aggregate} aggregates, not daily values; the ingest reads the daily files (named without .${cmip6.aggregate})`);
  const variable = named.variable ?? attrs.variable;
  const scenario = named.scenario ?? attrs.scenario;
  const statedModel = named.model ?? attrs.model;
  const model = statedModel && ctx.generation === 'CMIP6' ? modelDirectory(statedModel, cmip6?.gridLabel, ctx.runs) : statedModel;
  if (!variable) fail(`cannot tell which variable it holds (tasmax, tasmin or pr): the name follows neither dataset's naming and no variable_id attribute or single data variable says; its variables: ${f.variableNames().join(', ')}`);
  if (!model) fail(`cannot tell its model: the name follows neither dataset's naming and no global attribute (driving_model_id, model_id, source_id, title) names a ${ctx.dataset} model`);
  if (!ctx.models.includes(model)) {
    const why = LEFT_OUT_MODELS[ctx.dataset]?.[model];
    fail(`model '${model}' is not a ${ctx.dataset} model${why ? ` of this service: ${why}` : ''}; ${ctx.dataset} models: ${ctx.models.join(', ')}`);
  }
  if (!scenario || !ctx.scenarioYears.has(scenario)) {
    const names = ctx.generation === 'CMIP6' ? 'historical, ssp126, ssp245, ssp370 or ssp585' : 'historical, rcp45 or rcp85';
    fail(`scenario '${scenario ?? '(not stated)'}' is not one of ${ctx.dataset}'s ${[...ctx.scenarioYears.keys()].join(', ')} (file names say ${names}; else the experiment_id attribute)`);
  }
  const run = ctx.runs.find((r) => r.model === model);
  if (ctx.generation === 'CMIP6' && run) {
    const mismatch = runMismatch(ctx.dataset, run, ctx.runs, scenario, cmip6?.member ?? attrs.member, cmip6?.gridLabel);
    if (mismatch) fail(mismatch);
  }
  const v = f.variable(variable);
  if (!v) fail(`has no variable '${variable}'; its variables: ${f.variableNames().join(', ')}`);
  if (v.shape.length !== 3) fail(`variable ${variable} has ${v.shape.length} dimensions (${v.dims.join(', ')}); expected (time, lat, lon)`);
  const [nt, ni, nj] = v.shape as [number, number, number];
  if (LON_NAMES.includes(v.dims[1]!.toLowerCase()) || LAT_NAMES.includes(v.dims[2]!.toLowerCase()) || TIME_NAMES.includes(v.dims[2]!.toLowerCase())) {
    fail(`variable ${variable} is shaped (${v.dims.join(', ')}); the ingest reads (time, lat, lon)`);
  }
  const timeVar = coordinate(f, v.dims[0]!, TIME_NAMES, nt);
  const latVar = coordinate(f, v.dims[1]!, LAT_NAMES, ni);
  const lonVar = coordinate(f, v.dims[2]!, LON_NAMES, nj);
  if (!timeVar || !latVar || !lonVar) {
    fail(
      `variable ${variable} is shaped (${v.dims.map((d, k) => `${d || '?'}=${v.shape[k]}`).join(', ')}) but the file has no matching ` +
        `${[!timeVar && 'time', !latVar && 'lat/latitude', !lonVar && 'lon/longitude'].filter(Boolean).join(', ')} coordinate variable`,
    );
  }

  const timeAttrs = f.variable(timeVar)!.attrs;
  const [timeUnits, timeCalendar] = [timeAttrs.units as string | undefined, typeof timeAttrs.calendar === 'string' ? timeAttrs.calendar : undefined];
  const calendar = parseCalendar(timeCalendar).name;
  const timeValues = f.readAll(timeVar);
  const days = decodeTimes(timeValues, timeUnits, timeCalendar);
  const [y0, y1] = ctx.scenarioYears.get(scenario)!;
  if (nt > 0 && (yearOf(days[0]!) < y0 || yearOf(days[nt - 1]!) > y1)) {
    fail(`its dates run from ${isoDate(days[0]!)} to ${isoDate(days[nt - 1]!)}, outside ${scenario}'s years ${y0}-${y1} in ${ctx.dataset}`);
  }
  if (ctx.generation === 'CMIP6') {
    const axis = calendarDays(timeValues, timeUnits, timeCalendar);
    if (cmip6 && nt > 0 && (axis.years[0]! < cmip6.years[0] || axis.years[nt - 1]! > cmip6.years[1])) {
      fail(`its dates run from ${isoDate(days[0]!)} to ${isoDate(days[nt - 1]!)}, outside the year${cmip6.years[0] === cmip6.years[1] ? ` ${cmip6.years[0]}` : `s ${cmip6.years.join('-')}`} its name states`);
    }
    const incomplete = incompleteDays(axis.calendar, calendar, axis, days, cmip6?.years);
    if (incomplete) fail(incomplete);
  }

  const rows = placeAxis(f.readAll(latVar), 'lat', ctx.grid);
  const cols = placeAxis(f.readAll(lonVar), 'lon', ctx.grid);
  const targets: CellTarget[] = [];
  for (const cellId of ctx.cells) {
    const i = rows.get(Math.floor(cellId / ctx.grid.cols));
    const j = cols.get(cellId % ctx.grid.cols);
    if (i !== undefined && j !== undefined) targets.push({ cellId, i, j });
  }

  const decoder = valueDecoder(variable, v.attrs);
  const series = new Map<number, Float32Array>(targets.map((c) => [c.cellId, new Float32Array(nt).fill(NaN)]));
  let valuesRead = 0;
  for (const block of planReads(targets, v.shape, v.chunks)) {
    const data = f.readBlock(variable, block.t, block.i, block.j);
    const [bi, bj] = [block.i[1] - block.i[0], block.j[1] - block.j[0]];
    for (const c of block.cells) {
      const out = series.get(c.cellId)!;
      const base = (c.i - block.i[0]) * bj + (c.j - block.j[0]);
      for (let t = block.t[0]; t < block.t[1]; t++) out[t] = decoder.decode(data[(t - block.t[0]) * bi * bj + base]!);
      valuesRead += block.t[1] - block.t[0];
    }
  }
  let cellsEmpty = 0;
  for (const [cellId, values] of series) {
    if (values.every(Number.isNaN)) {
      series.delete(cellId);
      cellsEmpty++;
    }
  }
  return { file, format: f.format, variable, model, scenario, calendar, days, series, cellsInFile: targets.length, cellsEmpty, valuesRead };
}
