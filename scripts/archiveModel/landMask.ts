import { normalizeLon } from '../../src/reference/grids.js';
import type { MultiPolygon } from '../../src/ingest/geometry.js';
import { readLand } from '../../src/ingest/sources.js';

let land: MultiPolygon | undefined;

/**
 * Which cell centres of a lat x lon grid lie on land (Natural Earth 1:10m land, data/sources), as
 * 1 or 0 in row-major order: the publishers' files hold fill values over the sea. One scanline per
 * row: the longitudes where the row's latitude crosses a coastline edge, sorted, toggle land and
 * sea (even-odd, so lakes in the polygons stay water), which takes well under a second for a
 * global 0.25 degree grid.
 */
export function landMask(lats: number[], lons: number[]): Uint8Array {
  land ??= readLand();
  const nj = lons.length;
  const mask = new Uint8Array(lats.length * nj);
  const order = lats.map((lat, i) => ({ lat, i })).sort((a, b) => a.lat - b.lat);
  const sortedLats = order.map((o) => o.lat);
  const crossings: number[][] = lats.map(() => []);
  // The first row at or above a latitude.
  const firstAtOrAbove = (y: number) => {
    let lo = 0;
    let hi = sortedLats.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sortedLats[mid]! < y) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  for (const poly of land)
    for (const ring of poly)
      for (let k = 1; k < ring.length; k++) {
        const [x1, y1] = ring[k - 1] as [number, number];
        const [x2, y2] = ring[k] as [number, number];
        if (y1 === y2) continue;
        // Rows whose latitude lies in [min, max) of the edge cross it once.
        const [lo, hi] = y1 < y2 ? [y1, y2] : [y2, y1];
        for (let r = firstAtOrAbove(lo); r < sortedLats.length && sortedLats[r]! < hi; r++) {
          const y = sortedLats[r]!;
          crossings[order[r]!.i]!.push(x1 + ((y - y1) * (x2 - x1)) / (y2 - y1));
        }
      }
  const west = lons.map((x) => normalizeLon(x));
  for (let i = 0; i < lats.length; i++) {
    const xs = crossings[i]!.sort((a, b) => a - b);
    if (xs.length === 0) continue;
    for (let j = 0; j < nj; j++) {
      // Crossings west of the centre: odd means inside land.
      let lo = 0;
      let hi = xs.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (xs[mid]! < west[j]!) lo = mid + 1;
        else hi = mid;
      }
      mask[i * nj + j] = lo % 2;
    }
  }
  return mask;
}
