import h5wasm from 'h5wasm/node';

/**
 * Writes one NetCDF-4 file (CF-1.8) through the HDF5 library (h5wasm): netCDF-4 is HDF5 with
 * dimensions as HDF5 dimension scales, which is what netCDF-C, xarray and the HDF5 tools read.
 * Data variables are `(model, time|period, lat, lon)` for an area or `(model, location,
 * time|period)` for places, with a _FillValue where there is no value.
 */

export const FILL = 1e20;

export interface NetcdfAxis {
  /** The dimension's name: `time`, or `period` (per indicator when their periods differ). */
  dim: string;
  /** Days since 1950-01-01 (time), or period keys as the indicator endpoints name them. */
  values: number[] | string[];
}

export interface NetcdfVariable {
  name: string;
  axis: NetcdfAxis;
  attrs: Record<string, string>;
  /** Row-major in the variable's dimension order; NaN where there is no value. float32 as stored, float64 for indicators. */
  values: Float32Array | Float64Array;
}

export type NetcdfWhere =
  | { kind: 'area'; lats: number[]; lons: number[] }
  | { kind: 'locations'; labels: string[]; names: string[]; cityIds: number[]; cellIds: number[]; lats: number[]; lons: number[] };

export interface NetcdfContent {
  globals: Record<string, string>;
  models: string[];
  where: NetcdfWhere;
  variables: NetcdfVariable[];
}

type H5File = InstanceType<typeof h5wasm.File>;
type Attributed = { create_attribute: H5File['create_attribute'] };

/** netCDF-C reads fixed-length ASCII/UTF-8 attributes as NC_CHAR text, what CF tools expect. */
function text(o: Attributed, name: string, value: string) {
  o.create_attribute(name, value, null, `A${Math.max(1, Buffer.byteLength(value))}`);
}

export async function writeNetcdf(file: string, content: NetcdfContent): Promise<void> {
  await h5wasm.ready;
  const f = new h5wasm.File(file, 'w');
  try {
    for (const [k, v] of Object.entries(content.globals)) text(f, k, v);
    const coordinate = (name: string, data: Float64Array | Int32Array | string[], attrs: Record<string, string>, scale: boolean) => {
      const d = f.create_dataset({ name, data: data as never });
      if (scale) d.make_scale(name);
      for (const [k, v] of Object.entries(attrs)) text(d, k, v);
      return d;
    };
    coordinate('model', content.models, { long_name: 'climate model' }, true);
    const where = content.where;
    let placeDims: string[];
    let coordinates = '';
    if (where.kind === 'area') {
      coordinate('lat', Float64Array.from(where.lats), { standard_name: 'latitude', long_name: 'latitude of the map cell centre', units: 'degrees_north', axis: 'Y' }, true);
      coordinate('lon', Float64Array.from(where.lons), { standard_name: 'longitude', long_name: 'longitude of the map cell centre', units: 'degrees_east', axis: 'X' }, true);
      placeDims = ['lat', 'lon'];
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
      placeDims = ['location'];
      coordinates = 'lat lon city_id cell_id name';
    }
    const axes = new Map<string, NetcdfAxis>();
    for (const v of content.variables) axes.set(v.axis.dim, v.axis);
    for (const axis of axes.values()) {
      if (typeof axis.values[0] === 'number' || axis.values.length === 0) {
        coordinate(axis.dim, Float64Array.from(axis.values as number[]), { standard_name: 'time', long_name: 'time', units: 'days since 1950-01-01', calendar: 'proleptic_gregorian', axis: 'T' }, true);
      } else {
        coordinate(axis.dim, axis.values as string[], { long_name: 'period of the indicator, as the indicator endpoints name it' }, true);
      }
    }
    for (const v of content.variables) {
      const dims = where.kind === 'area' ? ['model', v.axis.dim, ...placeDims] : ['model', ...placeDims, v.axis.dim];
      const sizes = dims.map((d) => (d === 'model' ? content.models.length : d === 'lat' && where.kind === 'area' ? where.lats.length : d === 'lon' && where.kind === 'area' ? where.lons.length : d === 'location' && where.kind === 'locations' ? where.labels.length : axes.get(d)!.values.length));
      const wide = v.values instanceof Float64Array;
      const data = wide ? new Float64Array(v.values.length) : new Float32Array(v.values.length);
      for (let i = 0; i < data.length; i++) data[i] = Number.isNaN(v.values[i]!) ? FILL : v.values[i]!;
      // Chunks of one model and about a year of a place's days (or every cell of a day): what a
      // reader of one model and place or one day touches.
      const chunks = where.kind === 'area' ? [1, Math.min(sizes[1]!, Math.max(1, Math.floor(262_144 / Math.max(1, sizes[2]! * sizes[3]!)))), sizes[2]!, sizes[3]!] : [1, Math.min(sizes[1]!, 16), Math.min(sizes[2]!, 4096)];
      const dtype = wide ? '<d' : '<f';
      const d = f.create_dataset({ name: v.name, data, shape: sizes, dtype, chunks: chunks.map((c) => Math.max(1, c)), compression: 'gzip', compression_opts: 1 });
      dims.forEach((dim, k) => d.attach_scale(k, dim));
      // Typed like the values, as netCDF requires of _FillValue.
      d.create_attribute('_FillValue', wide ? new Float64Array([FILL]) : new Float32Array([FILL]), [], dtype);
      for (const [k, val] of Object.entries(v.attrs)) text(d, k, val);
      if (coordinates) text(d, 'coordinates', coordinates);
    }
  } finally {
    f.close();
  }
}
