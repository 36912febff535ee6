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

export interface ReadBlock {
  t: [number, number];
  i: [number, number];
  j: [number, number];
  cells: CellTarget[];
}

/** Largest block read at once, in values (16 MB of float32), unless one chunk is larger. */
const MAX_BLOCK_VALUES = 4 * 1024 * 1024;

/**
 * The reads that fetch the target cells: cells are grouped by the spatial chunk holding them, each
 * group read as the bounding box of its cells within that chunk, over time spans that are whole
 * chunks. Every chunk is then decompressed once, and no read exceeds one chunk or MAX_BLOCK_VALUES.
 * Unchunked variables are read cell by cell (a strided read of one time series).
 */
export function planReads(targets: CellTarget[], shape: number[], chunks: number[] | null): ReadBlock[] {
  const [nt] = shape as [number, number, number];
  const [ct, ci, cj] = chunks ?? [nt, 1, 1];
  const groups = new Map<string, CellTarget[]>();
  for (const c of targets) {
    const key = `${Math.floor(c.i / ci!)}:${Math.floor(c.j / cj!)}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(c);
  }
  const blocks: ReadBlock[] = [];
  for (const cells of groups.values()) {
    const i0 = Math.min(...cells.map((c) => c.i));
    const i1 = Math.max(...cells.map((c) => c.i)) + 1;
    const j0 = Math.min(...cells.map((c) => c.j));
    const j1 = Math.max(...cells.map((c) => c.j)) + 1;
    const area = (i1 - i0) * (j1 - j0);
    const span = Math.min(nt, Math.max(ct!, Math.floor(MAX_BLOCK_VALUES / area / ct!) * ct!));
    for (let t0 = 0; t0 < nt; t0 += span) blocks.push({ t: [t0, Math.min(nt, t0 + span)], i: [i0, i1], j: [j0, j1], cells });
  }
  return blocks;
}
