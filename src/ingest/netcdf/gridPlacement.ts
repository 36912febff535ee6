import { normalizeLon, type Grid } from '../../reference/grids.js';

/**
 * Where a file's coordinate values sit in a dataset grid: grid row (or column) -> index in the file.
 * Every coordinate must be a cell centre of the grid (within 1% of a cell), else the grid cannot be
 * placed and nothing is read. Longitudes may be in 0..360 or -180..180, latitudes in either order.
 */
export function placeAxis(coords: ArrayLike<number>, axis: 'lat' | 'lon', grid: Grid): Map<number, number> {
  const origin = axis === 'lat' ? grid.lat0 : grid.lon0;
  const extent = axis === 'lat' ? grid.rows : grid.cols;
  const out = new Map<number, number>();
  for (let k = 0; k < coords.length; k++) {
    const c = axis === 'lon' ? normalizeLon(coords[k]!) : coords[k]!;
    const pos = (c - origin) / grid.size - 0.5;
    const index = Math.round(pos);
    if (!Number.isFinite(c) || Math.abs(pos - index) > 0.01) {
      throw new Error(
        `${axis} value ${coords[k]} (index ${k}) is not the centre of a ${grid.dataset} cell: its grid has ${grid.size} degree cells ` +
          `with centres at ${origin} + (k + 0.5) * ${grid.size}; this file's grid cannot be placed on it`,
      );
    }
    if (index < 0 || index >= extent) continue; // outside the dataset's grid (LOCA covers the conterminous US only)
    if (out.has(index)) throw new Error(`${axis} values at indexes ${out.get(index)} and ${k} fall in the same ${grid.dataset} cell`);
    out.set(index, k);
  }
  return out;
}

export interface CellTarget {
  cellId: number;
  /** Row (latitude) and column (longitude) index in the file. */
  i: number;
  j: number;
}

/** Target cells read together: the box of file rows and columns that holds them. */
export interface ReadGroup {
  i: [number, number];
  j: [number, number];
  cells: CellTarget[];
}

/** Largest block read at once, in values (16 MB of float32), unless one chunk is larger. */
const MAX_BLOCK_VALUES = 4 * 1024 * 1024;
/** Up to this many cells of an unchunked (NetCDF-3) variable are read as time series, one by one. */
const SERIES_READS = 16;

/**
 * How to read the target cells: grouped by the spatial chunk holding them, each group read as the
 * bounding box of its cells within that chunk, so that every chunk is decompressed once per time
 * span. Unchunked variables (NetCDF-3) are read cell by cell for a few cells (a strided time
 * series each) and as one box of record rows for more.
 */
export function readGroups(targets: CellTarget[], chunks: number[] | null): ReadGroup[] {
  const box = (cells: CellTarget[]): ReadGroup => {
    let [i0, i1, j0, j1] = [Infinity, -Infinity, Infinity, -Infinity];
    for (const c of cells) {
      if (c.i < i0) i0 = c.i;
      if (c.i > i1) i1 = c.i;
      if (c.j < j0) j0 = c.j;
      if (c.j > j1) j1 = c.j;
    }
    return { i: [i0, i1 + 1], j: [j0, j1 + 1], cells };
  };
  if (!chunks) return targets.length <= SERIES_READS ? targets.map((c) => box([c])) : targets.length > 0 ? [box(targets)] : [];
  const [, ci, cj] = chunks as [number, number, number];
  const groups = new Map<number, CellTarget[]>();
  for (const c of targets) {
    const key = Math.floor(c.i / ci) * 1e6 + Math.floor(c.j / cj);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(c);
  }
  return [...groups.values()].map(box);
}

/**
 * The time spans to read a group in, within [t0, t1): whole time chunks (so no chunk is inflated
 * twice), each at most MAX_BLOCK_VALUES unless one chunk is larger.
 */
export function timeSpans(group: ReadGroup, window: [number, number], chunks: number[] | null): [number, number][] {
  const ct = chunks ? chunks[0]! : 1;
  const area = (group.i[1] - group.i[0]) * (group.j[1] - group.j[0]);
  const span = chunks || area > 1 ? Math.max(ct, Math.floor(MAX_BLOCK_VALUES / area / ct) * ct) : window[1] - window[0];
  const out: [number, number][] = [];
  for (let t = window[0]; t < window[1]; t += span) out.push([t, Math.min(window[1], t + span)]);
  return out;
}
