import type { Grid } from '../../reference/grids.js';
import { IngestError } from './ingestError.js';

export type Bbox = [west: number, south: number, east: number, north: number];

/** `west,south,east,north` in degrees -> a box, or an error naming BBOX and what it takes. */
export function parseBbox(text: string | undefined): Bbox | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const parts = text.split(',').map((p) => p.trim());
  const xs = parts.map(Number);
  const usage = `BBOX takes 'west,south,east,north' in degrees (longitudes -180..180 with west < east, latitudes -90..90 with south < north), e.g. BBOX=-105.5,39.5,-104.5,40.5; got '${text.trim()}'`;
  if (parts.length !== 4 || parts.some((p) => p === '') || xs.some((x) => !Number.isFinite(x))) throw new IngestError(usage);
  const [w, s, e, n] = xs as Bbox;
  if (w < -180 || e > 180 || w >= e || s < -90 || n > 90 || s >= n) throw new IngestError(usage);
  return [w, s, e, n];
}

/**
 * The cells of a grid that hold some point of the box (so that any lat/lon inside it answers with
 * its cell), ascending. Empty when the box lies outside the grid.
 */
export function boxCells(grid: Grid, [w, s, e, n]: Bbox): Int32Array {
  const clamp = (x: number, max: number) => Math.min(max - 1, Math.max(0, x));
  const r0 = Math.floor((s - grid.lat0) / grid.size);
  const r1 = Math.floor((n - grid.lat0) / grid.size);
  const c0 = Math.floor((w - grid.lon0) / grid.size);
  const c1 = Math.floor((e - grid.lon0) / grid.size);
  if (r1 < 0 || r0 >= grid.rows || c1 < 0 || c0 >= grid.cols) return new Int32Array(0);
  const [ra, rb, ca, cb] = [clamp(r0, grid.rows), clamp(r1, grid.rows), clamp(c0, grid.cols), clamp(c1, grid.cols)];
  const out = new Int32Array((rb - ra + 1) * (cb - ca + 1));
  let k = 0;
  for (let r = ra; r <= rb; r++) for (let c = ca; c <= cb; c++) out[k++] = r * grid.cols + c;
  return out;
}

/** The union of cell lists, ascending and without repeats. */
export function unionCells(...lists: ArrayLike<number>[]): Int32Array {
  const all = new Int32Array(lists.reduce((n, l) => n + l.length, 0));
  let k = 0;
  for (const l of lists) for (let i = 0; i < l.length; i++) all[k++] = l[i]!;
  all.sort();
  let m = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[m++] = all[i]!;
  return all.slice(0, m);
}
