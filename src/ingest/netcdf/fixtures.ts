import fs from 'node:fs';
import path from 'node:path';
import h5wasm from 'h5wasm/node';
import { epochDay, isLeap } from './cfTime.js';
import type { Variable } from './cfValues.js';
import { netcdf3Bytes, type Nc3Attr } from './netcdf3Writer.js';

/**
 * Small NetCDF files in the NEX-GDDP and LOCA layouts, for tests and benchmarks: real NetCDF-4
 * (HDF5 with dimension scales, so ncdump and xarray read them) or NetCDF-3 classic, with the
 * variations real files have (calendars, longitude conventions, descending latitudes, fill values,
 * packed values, units, time units).
 */
export interface FixtureSpec {
  layout: 'NEX-GDDP' | 'LOCA';
  variable: Variable;
  model: string;
  scenario: 'historical' | 'RCP45' | 'RCP85';
  year: number;
  calendar?: 'standard' | 'gregorian' | 'proleptic_gregorian' | 'noleap' | '365_day' | '360_day';
  /** Cell centres spanned, degrees: [south, north] and [west, east] (west/east in -180..180). */
  lat: [number, number];
  lon: [number, number];
  /** Longitudes written in 0..360 (as both datasets' files are) rather than -180..180. */
  lon360?: boolean;
  latDescending?: boolean;
  /** Units of the values written (default K, or kg m-2 s-1 for pr). */
  units?: string;
  /** int16 values with scale_factor and add_offset. */
  packed?: boolean;
  timeUnits?: string;
  /** Cells (centres) holding the fill value on every day, e.g. sea cells. */
  fillCells?: { lat: number; lon: number }[];
  format?: 'netcdf4' | 'netcdf3';
  chunks?: [number, number, number];
  /** Name the file `<name>.nc` and state variable, model and scenario only in global attributes. */
  fileName?: string;
  /** Store the values under this variable name instead (to test unknown variables). */
  storeAs?: string;
  /**
   * Adds deterministic day-to-day noise of this relative size (benchmarks: smooth values compress
   * 100:1, real model output about 2:1). fixtureValue does not include it.
   */
  noise?: number;
  /** Store the variable as (time, lon, lat), which the ingest refuses (NetCDF-4 only). */
  lonFirst?: boolean;
}

const CELL = { 'NEX-GDDP': 0.25, LOCA: 0.0625 };
export const FILL = 1e20;
const PACKED_FILL = -32767;
const MODEL_BIAS = (model: string) => [...model].reduce((n, c) => (n * 31 + c.charCodeAt(0)) % 97, 0) / 97;

/**
 * The value (storage units: K, kg m-2 s-1) a fixture holds at time index t of its file, for a cell
 * centre. Distinct per cell, model, variable and day, so a misplaced read shows.
 */
export function fixtureValue(variable: Variable, model: string, year: number, t: number, lat: number, lon: number): number {
  const tasmax = 250 + (lat - 20) + (lon + 130) * 0.1 + 0.05 * t + MODEL_BIAS(model) + (year - 2000) * 0.01;
  if (variable === 'tasmax') return tasmax;
  if (variable === 'tasmin') return tasmax - 10;
  return ((t % 7) * 2 + (lat - 20) * 0.1) / 86400;
}

/** From storage units to the fixture's units. */
function toUnits(variable: Variable, units: string | undefined, v: number): number {
  if (!units) return v;
  if (variable !== 'pr') return /c/i.test(units) ? v - 273.15 : v;
  return /day|d-1/i.test(units) ? v * 86400 : v;
}

/** Steps of the fixture's year in its calendar, and their time values in its time units. */
export function fixtureTimes(spec: FixtureSpec): { steps: number; values: Float64Array; units: string } {
  const calendar = spec.calendar ?? 'standard';
  const steps = calendar === '360_day' ? 360 : calendar === 'noleap' || calendar === '365_day' ? 365 : isLeap(spec.year) ? 366 : 365;
  const units = spec.timeUnits ?? 'days since 1950-01-01 00:00:00';
  const m = /^(days|hours) since (\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}))?/.exec(units);
  if (!m) throw new Error(`fixture time units must be 'days|hours since yyyy-mm-dd[ hh...]', got ${units}`);
  const [ry, rm, rd, rh] = [Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5] ?? 0)];
  // Days from the reference to Jan 1 of the year, counted in the fixture's calendar.
  const count = (y: number, mo: number, d: number) =>
    calendar === '360_day' ? y * 360 + (mo - 1) * 30 + d - 1
    : calendar === 'noleap' || calendar === '365_day' ? y * 365 + [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334][mo - 1]! + d - 1
    : epochDay(y, mo, d);
  const start = count(spec.year, 1, 1) - count(ry, rm, rd) - rh / 24;
  const per = m[1] === 'hours' ? 24 : 1;
  // Daily means stamped at noon, as NEX-GDDP's are.
  const values = Float64Array.from({ length: steps }, (_, t) => (start + t + 0.5) * per);
  return { steps, values, units };
}

export function fixtureFileName(spec: FixtureSpec): string {
  if (spec.fileName) return `${spec.fileName}.nc`;
  const rcp = spec.scenario.toLowerCase();
  return spec.layout === 'NEX-GDDP'
    ? `${spec.variable}_day_BCSD_${rcp}_r1i1p1_${spec.model}_${spec.year}.nc`
    : `${spec.variable}_day_${spec.model}_${rcp}_r1i1p1_${spec.year}0101-${spec.year}1231.LOCA_2016-04-02.16th.nc`;
}

function axis(from: number, to: number, step: number): number[] {
  const n = Math.round((to - from) / step) + 1;
  return Array.from({ length: n }, (_, k) => from + k * step);
}

/** Writes one fixture into `dir`; returns its path. */
export async function writeFixture(dir: string, spec: FixtureSpec): Promise<string> {
  await h5wasm.ready;
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, fixtureFileName(spec));
  const size = CELL[spec.layout];
  let lats = axis(spec.lat[0], spec.lat[1], size);
  if (spec.latDescending) lats = lats.reverse();
  const lonsReal = axis(spec.lon[0], spec.lon[1], size);
  const lons = spec.lon360 ? lonsReal.map((x) => (x < 0 ? x + 360 : x)) : lonsReal;
  const { steps, values: times, units: timeUnits } = fixtureTimes(spec);
  const [ni, nj] = [lats.length, lons.length];
  const fills = new Set((spec.fillCells ?? []).map((c) => `${c.lat}:${c.lon}`));
  const units = spec.units ?? (spec.variable === 'pr' ? 'kg m-2 s-1' : 'K');
  // Packed: int16 = round((v - offset) / scale).
  const scale = spec.variable === 'pr' ? 1e-8 : 0.01;
  const offset = spec.variable === 'pr' ? 0 : 280;
  const data = spec.packed ? new Int16Array(steps * ni * nj) : new Float32Array(steps * ni * nj);
  for (let t = 0; t < steps; t++) {
    for (let i = 0; i < ni; i++) {
      for (let j = 0; j < nj; j++) {
        const k = (t * ni + i) * nj + j;
        if (fills.has(`${lats[i]}:${lonsReal[j]}`)) {
          data[k] = spec.packed ? PACKED_FILL : FILL;
          continue;
        }
        let v = toUnits(spec.variable, spec.units, fixtureValue(spec.variable, spec.model, spec.year, t, lats[i]!, lonsReal[j]!));
        if (spec.noise) v *= 1 + spec.noise * (((Math.imul(k + 1, 2654435761) >>> 0) / 2 ** 32) - 0.5);
        data[k] = spec.packed ? Math.round((v - offset) / scale) : v;
      }
    }
  }
  const rcp = spec.scenario === 'historical' ? 'historical' : spec.scenario.toLowerCase();
  const globalAttrs: Record<string, string> = {
    Conventions: 'CF-1.6',
    title: `${spec.model} ${spec.layout} downscaled daily ${spec.variable} (test fixture)`,
    experiment_id: rcp,
    frequency: 'day',
    ...(spec.layout === 'NEX-GDDP' ? { model_id: 'BCSD', driving_model_id: spec.model } : { model_id: spec.model }),
    variable_id: spec.storeAs ?? spec.variable,
  };
  const calendar = spec.calendar ?? 'standard';
  const varAttrs = {
    units,
    standard_name: spec.variable === 'pr' ? 'precipitation_flux' : 'air_temperature',
    ...(spec.packed ? { scale_factor: scale, add_offset: offset } : {}),
  };

  if (spec.format === 'netcdf3') {
    const nc3: Record<string, Nc3Attr> = { units: varAttrs.units, standard_name: varAttrs.standard_name };
    nc3._FillValue = { type: spec.packed ? 'short' : 'float', values: [spec.packed ? PACKED_FILL : FILL] };
    if (spec.packed) {
      nc3.scale_factor = { type: 'float', values: [scale] };
      nc3.add_offset = { type: 'float', values: [offset] };
    }
    fs.writeFileSync(
      file,
      netcdf3Bytes({
        dims: { time: steps, lat: ni, lon: nj },
        recordDim: 'time',
        globalAttrs,
        variables: [
          { name: 'lat', dims: ['lat'], type: 'double', attrs: { units: 'degrees_north', standard_name: 'latitude', axis: 'Y' }, data: lats },
          { name: 'lon', dims: ['lon'], type: 'double', attrs: { units: 'degrees_east', standard_name: 'longitude', axis: 'X' }, data: lons },
          { name: 'time', dims: ['time'], type: 'double', attrs: { units: timeUnits, calendar, standard_name: 'time', axis: 'T' }, data: times },
          { name: spec.storeAs ?? spec.variable, dims: ['time', 'lat', 'lon'], type: spec.packed ? 'short' : 'float', attrs: nc3, data },
        ],
      }),
    );
    return file;
  }

  const f = new h5wasm.File(file, 'w');
  // Fixed-length ASCII, which netCDF reads as NC_CHAR (as netCDF-C writes text attributes of the
  // classic data model) rather than NC_STRING, which NetCDF-3 cannot hold.
  const text = (o: { create_attribute: InstanceType<typeof h5wasm.File>['create_attribute'] }, name: string, value: string) =>
    o.create_attribute(name, value, null, `A${Buffer.byteLength(value)}`);
  try {
    for (const [k, v] of Object.entries(globalAttrs)) text(f, k, v);
    const coord = (name: string, values: number[] | Float64Array, attrs: Record<string, string>) => {
      const d = f.create_dataset({ name, data: Float64Array.from(values) });
      d.make_scale(name);
      for (const [k, v] of Object.entries(attrs)) text(d, k, v);
    };
    coord('time', times, { units: timeUnits, calendar, standard_name: 'time', axis: 'T' });
    coord('lat', lats, { units: 'degrees_north', standard_name: 'latitude', axis: 'Y' });
    coord('lon', lons, { units: 'degrees_east', standard_name: 'longitude', axis: 'X' });
    const [shape, dims] = spec.lonFirst ? [[steps, nj, ni], ['time', 'lon', 'lat']] : [[steps, ni, nj], ['time', 'lat', 'lon']];
    const chunks = spec.chunks ?? [Math.min(steps, 73), Math.min(shape[1]!, 4), Math.min(shape[2]!, 4)];
    const v = f.create_dataset({ name: spec.storeAs ?? spec.variable, data, shape, chunks, compression: 'gzip', compression_opts: 4 });
    dims.forEach((d, k) => v.attach_scale(k, d));
    // Attributes typed like the variable's values, as netCDF requires of _FillValue.
    const typed = spec.packed ? '<h' : '<f';
    v.create_attribute('_FillValue', spec.packed ? new Int16Array([PACKED_FILL]) : new Float32Array([FILL]), [], typed);
    v.create_attribute('missing_value', spec.packed ? new Int16Array([PACKED_FILL]) : new Float32Array([FILL]), [], typed);
    for (const [k, val] of Object.entries(varAttrs)) {
      if (typeof val === 'string') text(v, k, val);
      else v.create_attribute(k, new Float32Array([val]), [], '<f');
    }
  } finally {
    f.close();
  }
  return file;
}
