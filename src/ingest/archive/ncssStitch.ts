import fs from 'node:fs';
import type { AttrValue } from '../netcdf/cfValues.js';
import { openGridFile } from '../netcdf/extract.js';
import type { GridFile } from '../netcdf/gridFile.js';
import { netcdf3Bytes, type Nc3Attr } from '../netcdf/netcdf3Writer.js';
import { FetchError } from './fetchError.js';

/** Attributes compared with the data's stored numbers: written in the data's type (float), so a float fill still matches. */
const DATA_TYPED = new Set(['_FillValue', 'missing_value', 'valid_min', 'valid_max', 'valid_range']);

const nc3Attrs = (attrs: Record<string, AttrValue>, dataTyped: boolean): Record<string, Nc3Attr> =>
  Object.fromEntries(
    Object.entries(attrs).map(([k, v]) => [k, typeof v === 'string' ? v : { type: dataTyped && DATA_TYPED.has(k) ? ('float' as const) : ('double' as const), values: Array.isArray(v) ? v : [v] }]),
  );

interface Part {
  f: GridFile;
  lat: Float64Array;
  lon: Float64Array;
  values: ArrayLike<number>;
}

/**
 * Writes one NetCDF-3 file of `variable` over the union of two NCSS subsets of the same file, the
 * two halves of a box cut along `axis` (a = the south or west half): the same days, coordinates
 * and attributes as one answer for the whole box would have had, each cell once whether or not the
 * server put the cells on the cut in both halves. Held in memory: a box's subset of
 * one year is what NCSS's size limit allows, twice.
 */
export async function stitchSubsets(a: string, b: string, axis: 'lat' | 'lon', variable: string, dest: string): Promise<void> {
  const open = async (file: string): Promise<Part> => {
    const f = await openGridFile(file);
    const v = f.variable(variable);
    if (!v || v.shape.length !== 3) {
      f.close();
      throw new FetchError(`the NCSS subset ${file} has no 3-D variable ${variable} (it has ${f.variableNames().join(', ')}): it cannot be stitched to its other half`);
    }
    return { f, lat: f.readAll('lat'), lon: f.readAll('lon'), values: f.readBlock(variable, [0, v.shape[0]!], [0, v.shape[1]!], [0, v.shape[2]!]) };
  };
  const [pa, pb] = [await open(a), await open(b)];
  try {
    const times = pa.f.readAll('time');
    const other = pb.f.readAll('time');
    if (times.length !== other.length || times.some((t, k) => t !== other[k])) {
      throw new FetchError(`the two halves of an NCSS subset (${a}, ${b}) hold different days (${times.length} and ${other.length}): NCSS changed between the requests; run the fetch again`);
    }
    // The file's own latitude order: a descending axis puts the northern half first.
    const ascending = (x: Float64Array) => (x.length > 1 ? x[1]! > x[0]! : undefined);
    const southFirst = ascending(pa.lat) ?? ascending(pb.lat) ?? true;
    const [first, second] = axis === 'lon' || southFirst ? [pa, pb] : [pb, pa];
    // Along the cut, the rows (or columns) of both halves in order, those the second repeats left
    // out: a server that includes the cells whose edge lies on the cut (TDS may) answers the cut's
    // two rows in both halves. The other axis is the same in both.
    const along = (p: Part) => (axis === 'lat' ? p.lat : p.lon);
    const seen = new Set(Array.from(along(first), String));
    const fromSecond = Array.from(along(second).keys()).filter((k) => !seen.has(String(along(second)[k])));
    const cut = Float64Array.from([...along(first), ...fromSecond.map((k) => along(second)[k]!)]);
    const across = axis === 'lat' ? pa.lon : pa.lat;
    if (Array.from(axis === 'lat' ? pb.lon : pb.lat).join() !== Array.from(across).join()) {
      throw new FetchError(`the two halves of an NCSS subset (${a}, ${b}) hold different ${axis === 'lat' ? 'longitudes' : 'latitudes'}: NCSS changed between the requests; run the fetch again`);
    }
    const source = [...Array.from(along(first).keys(), (k) => [first, k] as const), ...fromSecond.map((k) => [second, k] as const)];
    const lat = axis === 'lat' ? cut : across;
    const lon = axis === 'lon' ? cut : across;
    const [nt, ni, nj] = [times.length, lat.length, lon.length];
    const data = new Float32Array(nt * ni * nj);
    for (let t = 0; t < nt; t++) {
      for (let i = 0; i < ni; i++) {
        for (let j = 0; j < nj; j++) {
          const [p, k] = source[axis === 'lat' ? i : j]!;
          const [pi, pj] = axis === 'lat' ? [k, j] : [i, k];
          data[(t * ni + i) * nj + j] = p.values[(t * p.lat.length + pi) * p.lon.length + pj]!;
        }
      }
    }
    const attrsOf = (name: string) => pa.f.variable(name)?.attrs ?? {};
    const bytes = netcdf3Bytes({
      dims: { time: nt, lat: ni, lon: nj },
      globalAttrs: nc3Attrs(pa.f.globalAttrs, false),
      variables: [
        { name: 'time', dims: ['time'], type: 'double', attrs: nc3Attrs(attrsOf('time'), false), data: times },
        { name: 'lat', dims: ['lat'], type: 'double', attrs: nc3Attrs(attrsOf('lat'), false), data: lat },
        { name: 'lon', dims: ['lon'], type: 'double', attrs: nc3Attrs(attrsOf('lon'), false), data: lon },
        { name: variable, dims: ['time', 'lat', 'lon'], type: 'float', attrs: nc3Attrs(attrsOf(variable), true), data },
      ],
    });
    // Beside the target and renamed: a file in place is whole.
    fs.writeFileSync(`${dest}.stitch`, bytes);
    fs.renameSync(`${dest}.stitch`, dest);
  } finally {
    pa.f.close();
    pb.f.close();
  }
}
