import polygonClipping from 'polygon-clipping';
import type { Grid } from '../reference/grids.js';
import type { MultiPolygon, Polygon, Ring } from './geometry.js';

/**
 * Which map cells of a grid an area covers, and how much of each. Clipping is polygon-clipping's
 * (a maintained Martinez-Rueda sweep that handles holes, overlapping parts and degenerate edges);
 * only the area of the clipped pieces is computed here.
 */
export interface CoveredCell {
  cellId: number;
  /** Area of the cell's part of the area on the unit sphere (steradians). */
  area: number;
}

export interface AreaCover {
  /** Every grid cell whose intersection with the area has a positive area. */
  count: number;
  /** The covered cells `wanted` accepted, in cell id order, with their areas. */
  cells: CoveredCell[];
}

const RAD = Math.PI / 180;

/**
 * The area on the unit sphere of a ring whose edges are straight lines in lon/lat (as the clipping
 * takes them): the integral of cos(lat) dlon dlat over it, which is what makes a cell's area shrink
 * towards the poles. By Green's theorem it is the ring integral of -sin(lat) dlon, and along a
 * straight edge that is exact in closed form: -(dlon) sin(mean lat) sinc(half dlat) (the sinc
 * form avoids cancelling cosines on nearly flat edges). Positive for counter-clockwise rings.
 */
export function ringSphereArea(ring: Ring): number {
  let sum = 0;
  for (let i = 1; i < ring.length; i++) {
    const [x1, y1] = ring[i - 1]!;
    const [x2, y2] = ring[i]!;
    const h = ((y2 - y1) * RAD) / 2;
    const sinc = h === 0 ? 1 : Math.sin(h) / h;
    sum -= (x2 - x1) * RAD * Math.sin(((y1 + y2) * RAD) / 2) * sinc;
  }
  return sum;
}

/** A polygon's area on the unit sphere: its outer ring less its holes, whatever their orientation. */
export function polygonSphereArea(polygon: Polygon): number {
  return polygon.reduce((a, ring, i) => a + (i === 0 ? 1 : -1) * Math.abs(ringSphereArea(ring)), 0);
}

const rectangle = (x0: number, y0: number, x1: number, y1: number): Polygon => [
  [
    [x0, y0],
    [x1, y0],
    [x1, y1],
    [x0, y1],
    [x0, y0],
  ],
];

/**
 * The cells of `grid` the area covers. The area is first cut into the grid's rows (one clip per
 * row), then only the wanted cells (those with data) are clipped out of their row. The others are
 * counted without clipping: a connected piece of a row covers every cell its longitudes span.
 */
export function coverOf(grid: Grid, area: MultiPolygon, wanted: (cellId: number) => boolean): AreaCover {
  const parts = polygonClipping.union(area as polygonClipping.MultiPolygon);
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const poly of parts)
    for (const [x, y] of poly[0]!) {
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    }
  const out: AreaCover = { count: 0, cells: [] };
  if (parts.length === 0) return out;
  const { size, lat0, lon0 } = grid;
  const rowOf = (lat: number) => Math.floor((lat - lat0) / size);
  const colOf = (lon: number) => Math.floor((lon - lon0) / size);
  const firstRow = Math.max(0, rowOf(minY));
  const lastRow = Math.min(grid.rows - 1, Math.ceil((maxY - lat0) / size) - 1);
  for (let row = firstRow; row <= lastRow; row++) {
    const y0 = lat0 + row * size;
    const strip = polygonClipping.intersection(parts, rectangle(minX - 1, y0, maxX + 1, y0 + size));
    const cols = new Set<number>();
    for (const piece of strip) {
      if (polygonSphereArea(piece) <= 0) continue;
      let a = Infinity;
      let b = -Infinity;
      for (const [x] of piece[0]!) {
        a = Math.min(a, x);
        b = Math.max(b, x);
      }
      const last = Math.min(grid.cols - 1, Math.ceil((b - lon0) / size) - 1);
      for (let col = Math.max(0, colOf(a)); col <= last; col++) cols.add(col);
    }
    out.count += cols.size;
    for (const col of [...cols].sort((p, q) => p - q)) {
      const cellId = row * grid.cols + col;
      if (!wanted(cellId)) continue;
      const x0 = lon0 + col * size;
      const inCell = polygonClipping.intersection(strip, rectangle(x0, y0, x0 + size, y0 + size));
      const area = inCell.reduce((s, p) => s + polygonSphereArea(p), 0);
      if (area > 0) out.cells.push({ cellId, area });
    }
  }
  return out;
}
