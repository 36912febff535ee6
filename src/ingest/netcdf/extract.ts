import fs from 'node:fs';
import type { ModelRun } from '../../reference/fixtures.js';
import type { Grid } from '../../reference/grids.js';
import { calendarDays, decodeTimes, isoDate, parseCalendar, yearOf } from './cfTime.js';
import { datasetVariables } from '../../reference/datasetVariables.js';
import { valueDecoder, type ValueDecoder, type Variable } from './cfValues.js';
import { incompleteDays, modelDirectory, runMismatch } from './cmip6Checks.js';
import { LEFT_OUT_MODELS } from './cmip6Names.js';
import { identityFromAttributes, identityFromName } from './fileNames.js';
import { sniff, type GridFile, type GridVariable } from './gridFile.js';
import { placeAxis, readGroups, timeSpans, type CellTarget } from './gridPlacement.js';
import { newDecodeTimes, type DecodeTimes } from '../hdf5/decodeTimes.js';
import { Hdf5File } from './hdf5File.js';
import { IngestError } from './ingestError.js';
import { Netcdf3File } from './netcdf3File.js';
import { StagedWriter, type SourceKey, type StagedMeta } from './stagedFile.js';
import { rangeCount, rangeOf } from './cellRanges.js';

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
  /** Cell ids to extract, ascending. */
  cells: ArrayLike<number>;
  /** Target cells per range of the shuffle (cellRanges.ts): a file is staged as one part per range. */
  rangeCells: number;
  /** Memory for one time block of a file's values (bytes): a larger file is staged block by block. */
  blockBytes?: number;
}

/** 256 MB of float32: a year of 0.25 degree cells over a continent in one block, a 30-year LOCA2 file in a few. */
const BLOCK_BYTES = 256 * 1024 * 1024;
/** Days of a block read put into the cells' series at a time. */
const TILE_DAYS = 32;

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

/**
 * The map step of the ingest for one file: reads the target cells' values, chunk by chunk, and
 * stages them as one part per range of the target cells, at `partPath(range)` (each written under
 * a temporary name, then renamed; every range gets a part, empty where the file has none of its
 * cells, so that the reduce of a range finds every file's). Errors name the file.
 */
export async function stageFile(file: string, key: SourceKey, partPath: (range: number) => string, ctx: ExtractContext): Promise<StagedResult> {
  const fail = (problem: string): never => {
    throw new IngestError(`${file}: ${problem}`);
  };
  if (!fs.existsSync(file)) fail('no such file');
  let f: GridFile;
  const openedAt = performance.now();
  let opened = 0;
  try {
    f = await openGridFile(file);
    opened = (performance.now() - openedAt) / 1000;
  } catch (err) {
    if (err instanceof IngestError) throw err;
    return fail(`cannot be read as NetCDF: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const t0 = performance.now();
    const reading = extractFrom(f, file, ctx, fail);
    const metadata = (performance.now() - t0) / 1000 + opened;
    const out = readInto(f, reading, key, partPath, ctx);
    out.seconds.metadata = metadata;
    return out;
  } catch (err) {
    if (err instanceof IngestError) throw err;
    return fail(err instanceof Error ? err.message : String(err));
  } finally {
    f.close();
  }
}

/** A staged file's description (its parts share it), and where the time went (wall seconds). */
export type StagedResult = Omit<StagedMeta, 'blocks' | 'cellCount' | 'cellsOffset' | 'emptyCount'> & {
  /** Parts written, and their bytes. */
  parts: number;
  stagedBytes: number;
  /** Inside the block reads of NetCDF-4 chunks read natively. */
  decode: DecodeTimes;
  seconds: {
    /** Opening the file, its names, attributes, coordinates and dates (and the chunk index when first read). */
    metadata: number;
    /** Reading blocks of values (decode's steps for NetCDF-4 chunks). */
    blocks: number;
    /** Values to storage units, fill values to NaN, into each cell's series. */
    cells: number;
    /** Writing the staged file. */
    write: number;
  };
};

/** What a file holds and where the target cells are in it, once its names, axes and dates are checked. */
interface FileReading {
  format: string;
  variable: Variable;
  model: string;
  scenario: string;
  calendar: string;
  days: Int32Array;
  v: GridVariable;
  decoder: ValueDecoder;
  /** Target cells in the file's grid, by ascending cell id. */
  targets: CellTarget[];
  /** The range of the shuffle each target belongs to (ascending with the targets). */
  ranges: Int32Array;
  /** Ranges in all (of the ingest's target cells, not only this file's). */
  rangeCount: number;
}

/**
 * Reads the targets' values a time block at a time (as many days as fit in ctx.blockBytes, whole
 * time chunks) and stages them, one part per range. Each block reads every group of cells over its
 * days, so each chunk is decoded once.
 */
function readInto(f: GridFile, r: FileReading, key: SourceKey, partPath: (range: number) => string, ctx: ExtractContext): StagedResult {
  const seconds = { metadata: 0, blocks: 0, cells: 0, write: 0 };
  let clock = performance.now();
  const lap = (step: keyof typeof seconds) => {
    const now = performance.now();
    seconds[step] += (now - clock) / 1000;
    clock = now;
  };
  const nt = r.days.length;
  const n = r.targets.length;
  const ct = r.v.chunks ? r.v.chunks[0]! : 1;
  const budget = Math.max(1, Math.floor((ctx.blockBytes ?? BLOCK_BYTES) / 4 / Math.max(1, n)));
  const blockDays = Math.min(Math.max(nt, 1), Math.max(ct, Math.floor(budget / ct) * ct));
  const groups = readGroups(r.targets, r.v.chunks);
  const index = new Map(r.targets.map((c, k) => [c.cellId, k]));
  const hasData = new Uint8Array(n);
  const decode = r.decoder.decode;
  let valuesDecoded = 0;
  // Each range's targets are consecutive: [bounds[q], bounds[q + 1]).
  const bounds = new Int32Array(r.rangeCount + 1);
  for (let q = 0, k = 0; q <= r.rangeCount; q++) {
    while (k < n && r.ranges[k]! < q) k++;
    bounds[q] = k;
  }
  const writers = Array.from({ length: r.rangeCount }, (_, q) => new StagedWriter(partPath(q)));
  let single: Float32Array | undefined;
  try {
    for (let t0 = 0; t0 < nt; t0 += blockDays) {
      const t1 = Math.min(nt, t0 + blockDays);
      const bd = t1 - t0;
      const values = new Float32Array(n * bd);
      for (const g of groups) {
        const [gi, gj] = [g.i[1] - g.i[0], g.j[1] - g.j[0]];
        for (const [s0, s1] of timeSpans(g, [t0, t1], r.v.chunks)) {
          lap('cells');
          const data = f.readBlock(r.variable, [s0, s1], g.i, g.j);
          lap('blocks');
          valuesDecoded += data.length;
          const plane = gi * gj;
          // A few days at a time for every cell: the days of one cell are a plane apart in `data`,
          // so a cell's whole span at once missed the cache on every value (a 30-year block of 256
          // cells, 2.8 M values: 0.37 s, against 0.09-0.19 s in tiles).
          for (let a = s0; a < s1; a += TILE_DAYS) {
            const b = Math.min(s1, a + TILE_DAYS);
            for (const c of g.cells) {
              const k = index.get(c.cellId)!;
              const at = (c.i - g.i[0]) * gj + (c.j - g.j[0]) - s0 * plane;
              const out = k * bd - t0;
              let any = 0;
              for (let t = a; t < b; t++) {
                const x = decode(data[t * plane + at]!);
                values[out + t] = x;
                if (x === x) any = 1;
              }
              if (any) hasData[k] = 1;
            }
          }
        }
      }
      lap('cells');
      if (bd === nt) single = values;
      else writers.forEach((w, q) => w.block(t0, t1, values.subarray(bounds[q]! * bd, bounds[q + 1]! * bd)));
      lap('write');
    }
    const cellIds = Int32Array.from(r.targets, (c) => c.cellId);
    const empty = hasData.reduce((a, b) => a + (b ? 0 : 1), 0);
    const decodedChunks = f instanceof Hdf5File && f.valueReader === 'native' ? f.decodeTimes().chunks : 0;
    const meta = {
      source: key,
      variable: r.variable,
      model: r.model,
      scenario: r.scenario,
      calendar: r.calendar,
      format: r.format,
      days: Array.from(r.days),
      cellsInFile: n,
      cellsEmpty: empty,
      valuesRead: n * nt,
      // Whole chunks when read natively (a regional read of a global day inflates the globe);
      // values stored unchunked (contiguous, compact) are read as the block asks.
      valuesDecoded: decodedChunks > 0 && r.v.chunks ? decodedChunks * r.v.chunks.reduce((a, b) => a * b, 1) : valuesDecoded,
      reader: f instanceof Hdf5File ? f.valueReader : 'netcdf3',
    };
    let stagedBytes = 0;
    writers.forEach((w, q) => {
      const [k0, k1] = [bounds[q]!, bounds[q + 1]!];
      const ids = cellIds.subarray(k0, k1);
      if (single || nt === 0) {
        // One block: only the cells with values are kept; the others are listed.
        const keep: number[] = [];
        for (let k = k0; k < k1; k++) if (hasData[k]) keep.push(k);
        const kept = new Float32Array(keep.length * nt);
        keep.forEach((k, m) => kept.set(single!.subarray(k * nt, (k + 1) * nt), m * nt));
        w.block(0, nt, kept);
        w.finish(Int32Array.from(keep, (k) => cellIds[k]!), new Uint8Array(keep.length).fill(1), ids.filter((_, m) => !hasData[k0 + m]), meta);
      } else {
        w.finish(ids, hasData.subarray(k0, k1), new Int32Array(0), meta);
      }
      stagedBytes += fs.statSync(w.path).size;
    });
    lap('write');
    return { ...meta, parts: writers.length, stagedBytes, decode: f instanceof Hdf5File ? f.decodeTimes() : newDecodeTimes(), seconds };
  } catch (err) {
    for (const w of writers) w.abort();
    throw err;
  }
}

function extractFrom(f: GridFile, file: string, ctx: ExtractContext, fail: (problem: string) => never): FileReading {
  const named = identityFromName(file);
  if (named.layout !== undefined && named.layout !== ctx.dataset) {
    fail(`the file name follows the ${named.layout} naming, but the ingest is for ${ctx.dataset} (DATASET=${ctx.dataset})`);
  }
  const dataVariables = f.variableNames().filter((n) => (f.variable(n)?.shape.length ?? 0) === 3);
  const attrs = identityFromAttributes(f.globalAttrs, ctx.models, dataVariables);
  const cmip6 = named.cmip6;
  const served = datasetVariables(ctx.dataset);
  if (cmip6 && named.variable === undefined) fail(`holds ${cmip6.variable}; the ingest reads ${served.join(', ')} of ${ctx.dataset}`);
  if (cmip6?.aggregate) fail(`holds LOCA2 ${cmip6.aggregate} aggregates, not daily values; the ingest reads the daily files (named without .${cmip6.aggregate})`);
  const variable = named.variable ?? attrs.variable;
  const scenario = named.scenario ?? attrs.scenario;
  const statedModel = named.model ?? attrs.model;
  const model = statedModel && ctx.generation === 'CMIP6' ? modelDirectory(statedModel, cmip6?.gridLabel, ctx.runs) : statedModel;
  if (!variable) fail(`cannot tell which variable it holds (tasmax, tasmin or pr): the name follows neither dataset's naming and no variable_id attribute or single data variable says; its variables: ${f.variableNames().join(', ')}`);
  if (!served.includes(variable)) fail(`holds ${variable}, which ${ctx.dataset}'s files do not carry here: the ingest reads ${served.join(', ')} of ${ctx.dataset}`);
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
  const ranges: number[] = [];
  for (let k = 0; k < ctx.cells.length; k++) {
    const cellId = ctx.cells[k]!;
    const i = rows.get(Math.floor(cellId / ctx.grid.cols));
    const j = cols.get(cellId % ctx.grid.cols);
    if (i !== undefined && j !== undefined) {
      targets.push({ cellId, i, j });
      ranges.push(rangeOf(k, ctx.rangeCells));
    }
  }

  const decoder = valueDecoder(variable, v.attrs);
  return { format: f.format, variable, model, scenario, calendar, days, v, decoder, targets, ranges: Int32Array.from(ranges), rangeCount: rangeCount(ctx.cells.length, ctx.rangeCells) };
}
