/**
 * The two datasets' regular lat/lon grids. A map cell is identified by (dataset, cell id), where the
 * cell id is row * cols + col. Shared by the data build, the ingest and the point lookups, so that a
 * point always lands in the same cell everywhere.
 */
export interface Grid {
  dataset: string;
  /** Cell size in degrees (square cells). */
  size: number;
  /** South-west corner of the grid, degrees; longitudes in [-180, 180). */
  lat0: number;
  lon0: number;
  rows: number;
  cols: number;
}

export const GRIDS: Record<string, Grid> = {
  // 0.25 degree global grid; centres at odd multiples of 0.125 degrees.
  'NEX-GDDP': { dataset: 'NEX-GDDP', size: 0.25, lat0: -90, lon0: -180, rows: 720, cols: 1440 },
  // 1/16 degree grid over the conterminous US; centres at odd multiples of 1/32 degree
  // (the LOCA files span 23.90625..53.46875 N and 234.53125..292.96875 E).
  LOCA: { dataset: 'LOCA', size: 0.0625, lat0: 23.875, lon0: -125.5, rows: 474, cols: 936 },
  // NEX-GDDP-CMIP6 is on the same 0.25 degree cells as NEX-GDDP (its files stop at 59.875 S).
  'NEX-GDDP-CMIP6': { dataset: 'NEX-GDDP-CMIP6', size: 0.25, lat0: -90, lon0: -180, rows: 720, cols: 1440 },
  // LOCA2 covers North America at 1/16 degree, centres at odd multiples of 1/32 degree; its exact
  // domain is not published in a form we could check, so the grid spans 14-60 N, 136-52 W, and
  // the ingest places each file's cells on it by their coordinates.
  LOCA2: { dataset: 'LOCA2', size: 0.0625, lat0: 14, lon0: -136, rows: 736, cols: 1344 },
};

/** Longitude folded into [-180, 180). */
export function normalizeLon(lon: number): number {
  // Leave in-range values untouched: the modular arithmetic would add rounding noise.
  if (lon >= -180 && lon < 180) return lon;
  const x = ((((lon + 180) % 360) + 360) % 360) - 180;
  return Object.is(x, -0) ? 0 : x;
}

/** The cell containing the point, or undefined outside the grid. */
export function cellAt(grid: Grid, lat: number, lon: number): number | undefined {
  const row = Math.floor((lat - grid.lat0) / grid.size);
  const col = Math.floor((normalizeLon(lon) - grid.lon0) / grid.size);
  if (row < 0 || row >= grid.rows || col < 0 || col >= grid.cols) return undefined;
  return row * grid.cols + col;
}

export function cellCentre(grid: Grid, cellId: number): { lat: number; lon: number } {
  const row = Math.floor(cellId / grid.cols);
  const col = cellId % grid.cols;
  return { lat: grid.lat0 + (row + 0.5) * grid.size, lon: normalizeLon(grid.lon0 + (col + 0.5) * grid.size) };
}

/** States and territories outside the conterminous US, where LOCA and LOCA2 give no city a map cell. */
export const NON_CONUS = new Set(['AK', 'HI', 'PR', 'GU', 'VI', 'AS', 'MP', 'UM']);

/** The first position of the ascending `ids` whose id is >= id. */
export function lowerBound(ids: Int32Array, id: number): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Calls `visit` with the position in the ascending `ids` of each id in grid rows r0..r1, columns
 * c0..c1: ids are row-major, so each row's columns are one run, found by binary search.
 */
export function eachInBlock(ids: Int32Array, grid: Pick<Grid, 'cols'>, r0: number, r1: number, c0: number, c1: number, visit: (i: number) => void): void {
  for (let row = r0; row <= r1; row++) {
    const hi = row * grid.cols + c1;
    for (let i = lowerBound(ids, row * grid.cols + c0); i < ids.length && ids[i]! <= hi; i++) visit(i);
  }
}
