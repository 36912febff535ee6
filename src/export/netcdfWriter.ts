import h5wasm from 'h5wasm/node';

/**
 * Writes one NetCDF-4 file (CF-1.8) through the HDF5 library (h5wasm), one series at a time:
 * netCDF-4 is HDF5 with dimensions as HDF5 dimension scales, which is what netCDF-C, xarray and
 * the HDF5 tools read. Data variables are `(model, time|period, lat, lon)` for an area or
 * `(model, location, time|period)` for places, with a _FillValue where there is no value.
 *
 * Each chunk is one model's whole series at one place (`[1, T, 1, 1]` or `[1, 1, T]`), deflated at
 * level 1: a reader of one cell's century reads one chunk per model, and the writer fills a chunk
 * with each write, so memory holds one series, not the variable. h5wasm sets one filter per
 * dataset, so there is no shuffle before the deflate (netCDF-C, xarray and h5py read deflate
 * without plugins).
 */

export const FILL = 1e20;

export interface NetcdfAxis {
  /** The dimension's name: `time`, or `period` (per indicator when their periods differ). */
  dim: string;
  /** Days since 1950-01-01 (time), or period keys as the indicator endpoints name them. */
  values: number[] | string[];
}

export interface NetcdfVariableHeader {
  name: string;
  axis: NetcdfAxis;
  attrs: Record<string, string>;
  /** float64 (indicators) or float32 (raw values, as stored). */
  wide: boolean;
}

export type NetcdfWhere =
  | { kind: 'area'; lats: number[]; lons: number[] }
  | { kind: 'locations'; labels: string[]; names: string[]; cityIds: number[]; cellIds: number[]; lats: number[]; lons: number[] };

export interface NetcdfHeader {
  globals: Record<string, string>;
  models: string[];
  where: NetcdfWhere;
  variables: NetcdfVariableHeader[];
}

type H5File = InstanceType<typeof h5wasm.File>;
type H5Dataset = InstanceType<typeof h5wasm.Dataset>;
type Attributed = { create_attribute: H5File['create_attribute'] };

/** netCDF-C reads fixed-length ASCII/UTF-8 attributes as NC_CHAR text, what CF tools expect. */
function text(o: Attributed, name: string, value: string) {
  o.create_attribute(name, value, null, `A${Math.max(1, Buffer.byteLength(value))}`);
}

/** How often close() says how far its filling is. */
const FILL_REPORT_MS = 1000;

/** An open file whose coordinates are written and whose data variables receive their series. */
export interface NetcdfSeriesWriter {
  /**
   * One model's series of a variable at one place (an area's rectangle position `y * nx + x`, or a
   * location's index): as many values as the variable's axis, FILL where there is none.
   */
  writeSeries(variable: number, model: number, position: number, values: Float32Array | Float64Array): void;
  /** Positions per model: the rectangle's cells or the locations. */
  readonly positions: number;
  /**
   * Writes FILL where no series was written, and closes the file; `filled` hears how many of the
   * series to fill are done (at most about once a second, and at the end).
   */
  close(filled?: (done: number, total: number) => void): void;
  /** Closes the file as it is (an export that stopped: the file is removed). */
  abandon(): void;
}

export async function openNetcdf(file: string, header: NetcdfHeader): Promise<NetcdfSeriesWriter> {
  await h5wasm.ready;
  const f = new h5wasm.File(file, 'w');
  try {
    return writeHeader(f, header);
  } catch (err) {
    f.close();
    throw err;
  }
}

function writeHeader(f: H5File, header: NetcdfHeader): NetcdfSeriesWriter {
  for (const [k, v] of Object.entries(header.globals)) text(f, k, v);
  const coordinate = (name: string, data: Float64Array | Int32Array | string[], attrs: Record<string, string>, scale: boolean) => {
    const d = f.create_dataset({ name, data: data as never });
    if (scale) d.make_scale(name);
    for (const [k, v] of Object.entries(attrs)) text(d, k, v);
    return d;
  };
  coordinate('model', header.models, { long_name: 'climate model' }, true);
  const where = header.where;
  let coordinates = '';
  if (where.kind === 'area') {
    coordinate('lat', Float64Array.from(where.lats), { standard_name: 'latitude', long_name: 'latitude of the map cell centre', units: 'degrees_north', axis: 'Y' }, true);
    coordinate('lon', Float64Array.from(where.lons), { standard_name: 'longitude', long_name: 'longitude of the map cell centre', units: 'degrees_east', axis: 'X' }, true);
  } else {
    coordinate('location', where.labels, { long_name: 'location as asked: city/<id> or point/<lat>,<lon>', cf_role: 'timeseries_id' }, true);
    const perLocation = (name: string, data: Float64Array | Int32Array | string[], attrs: Record<string, string>) => {
      const d = coordinate(name, data, attrs, false);
      d.attach_scale(0, 'location');
    };
    perLocation('lat', Float64Array.from(where.lats), { standard_name: 'latitude', long_name: 'latitude of the map cell centre', units: 'degrees_north' });
    perLocation('lon', Float64Array.from(where.lons), { standard_name: 'longitude', long_name: 'longitude of the map cell centre', units: 'degrees_east' });
    perLocation('city_id', Int32Array.from(where.cityIds.map((id) => (id > 0 ? id : -1))), { long_name: 'GeoNames id of the city (-1 for a point)' });
    perLocation('cell_id', Int32Array.from(where.cellIds), { long_name: "map cell id on the dataset's grid (row * columns + column)" });
    perLocation('name', where.names, { long_name: 'name of the location' });
    coordinates = 'lat lon city_id cell_id name';
  }
  const axes = new Map<string, NetcdfAxis>();
  for (const v of header.variables) axes.set(v.axis.dim, v.axis);
  for (const axis of axes.values()) {
    if (typeof axis.values[0] === 'number' || axis.values.length === 0) {
      coordinate(axis.dim, Float64Array.from(axis.values as number[]), { standard_name: 'time', long_name: 'time', units: 'days since 1950-01-01', calendar: 'proleptic_gregorian', axis: 'T' }, true);
    } else {
      coordinate(axis.dim, axis.values as string[], { long_name: 'period of the indicator, as the indicator endpoints name it' }, true);
    }
  }
  const models = header.models.length;
  const [ny, nx] = where.kind === 'area' ? [where.lats.length, where.lons.length] : [1, where.labels.length];
  const datasets: { d: H5Dataset; steps: number; wide: boolean; written: Uint8Array }[] = [];
  for (const v of header.variables) {
    const steps = v.axis.values.length;
    const dims = where.kind === 'area' ? ['model', v.axis.dim, 'lat', 'lon'] : ['model', 'location', v.axis.dim];
    const sizes = where.kind === 'area' ? [models, steps, ny, nx] : [models, nx, steps];
    const chunks = where.kind === 'area' ? [1, Math.max(1, steps), 1, 1] : [1, 1, Math.max(1, steps)];
    const dtype = v.wide ? '<d' : '<f';
    // Made empty and then given its size: h5wasm writes a dataset's data at creation, and the
    // whole variable is what must never be in memory. The model dimension is the one grown.
    const empty = sizes.map((s, k) => (k === 0 ? 0 : s));
    const d = f.create_dataset({ name: v.name, data: v.wide ? new Float64Array(0) : new Float32Array(0), shape: empty, maxshape: sizes, dtype, chunks, compression: 'gzip', compression_opts: 1 });
    d.resize(sizes);
    dims.forEach((dim, k) => d.attach_scale(k, dim));
    // Typed like the values, as netCDF requires of _FillValue.
    d.create_attribute('_FillValue', v.wide ? new Float64Array([FILL]) : new Float32Array([FILL]), [], dtype);
    for (const [k, val] of Object.entries(v.attrs)) text(d, k, val);
    if (coordinates) text(d, 'coordinates', coordinates);
    datasets.push({ d, steps, wide: v.wide, written: new Uint8Array(models * ny * nx) });
  }
  const write = (variable: number, model: number, position: number, values: Float32Array | Float64Array) => {
    const { d, steps, written } = datasets[variable]!;
    if (values.length !== steps) throw new Error(`writeSeries: ${values.length} values for an axis of ${steps}`);
    written[model * ny * nx + position] = 1;
    if (steps === 0) return;
    if (where.kind === 'area') {
      const y = Math.floor(position / nx);
      const x = position % nx;
      d.write_slice([[model, model + 1], [0, steps], [y, y + 1], [x, x + 1]], values);
    } else {
      d.write_slice([[model, model + 1], [position, position + 1], [0, steps]], values);
    }
  };
  return {
    positions: ny * nx,
    writeSeries: write,
    // A chunk never written reads as HDF5's own fill value (0), not as _FillValue: every series
    // without data (a cell of the rectangle outside the area, a model without data there) is
    // written as FILL, which deflates to almost nothing.
    close(filled) {
      try {
        // A sparse area's rectangle can hold far more series to fill than with data: minutes of work.
        const total = datasets.reduce((n, { written }) => n + written.length - written.reduce((m, w) => m + w, 0), 0);
        let done = 0;
        let told = Date.now();
        datasets.forEach(({ steps, wide, written }, variable) => {
          const fill = (wide ? new Float64Array(steps) : new Float32Array(steps)).fill(FILL);
          written.forEach((w, k) => {
            if (w) return;
            write(variable, Math.floor(k / (ny * nx)), k % (ny * nx), fill);
            done++;
            if (filled && Date.now() - told >= FILL_REPORT_MS) {
              told = Date.now();
              filled(done, total);
            }
          });
        });
        filled?.(done, total);
      } finally {
        f.close();
      }
    },
    abandon: () => f.close(),
  };
}
