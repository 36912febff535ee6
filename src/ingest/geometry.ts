/**
 * Plain planar geometry on lon/lat for the data build: containment of points in polygons and the
 * distance from a point to a coastline. DuckDB's spatial extension cannot be installed here, and
 * these few functions are all the build needs.
 */
export type Ring = number[][];
export type Polygon = Ring[];
export type MultiPolygon = Polygon[];
export type Bbox = [number, number, number, number];

export function bboxOf(mp: MultiPolygon): Bbox {
  let [a, b, c, d] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const poly of mp)
    for (const ring of poly)
      for (const [x, y] of ring) {
        if (x! < a) a = x!;
        if (y! < b) b = y!;
        if (x! > c) c = x!;
        if (y! > d) d = y!;
      }
  return [a, b, c, d];
}

export const inBbox = (b: Bbox, x: number, y: number) => x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3];

/** Even-odd rule over every ring, so holes (and holes' islands) come out right. */
export function containsPoint(mp: MultiPolygon, x: number, y: number): boolean {
  let inside = false;
  for (const poly of mp) {
    for (const ring of poly) {
      for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
        const [xi, yi] = ring[i]!;
        const [xj, yj] = ring[j]!;
        if (yi! > y !== yj! > y && x < ((xj! - xi!) * (y - yi!)) / (yj! - yi!) + xi!) inside = !inside;
      }
    }
  }
  return inside;
}

const KM_PER_DEG = 111.195;

/** Distance in km from a point to the segment a-b, in a local equirectangular projection around the point. */
function segmentKm(x: number, y: number, kx: number, x1: number, y1: number, x2: number, y2: number): number {
  const ax = (x1 - x) * kx;
  const ay = (y1 - y) * KM_PER_DEG;
  const dx = (x2 - x) * kx - ax;
  const dy = (y2 - y) * KM_PER_DEG - ay;
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / len2));
  return Math.hypot(ax + t * dx, ay + t * dy);
}

/** Distance in km from a point to the nearest edge of any ring of the polygons. */
export function boundaryDistanceKm(mp: MultiPolygon, x: number, y: number): number {
  const kx = KM_PER_DEG * Math.cos((y * Math.PI) / 180);
  let best = Infinity;
  for (const poly of mp)
    for (const ring of poly)
      for (let i = 1; i < ring.length; i++) {
        const d = segmentKm(x, y, kx, ring[i - 1]![0]!, ring[i - 1]![1]!, ring[i]![0]!, ring[i]![1]!);
        if (d < best) best = d;
      }
  return best;
}

/**
 * Coastline segments (every polygon edge of the land layer) bucketed in a lat/lon grid, with the
 * land polygons for the in-sea test.
 */
export class Coastline {
  private readonly buckets = new Map<number, number[]>();
  private readonly segs: number[] = [];
  /** Segment ids per 0.1 degree latitude band, for the even-odd in-sea test. */
  private readonly bands = new Map<number, number[]>();

  constructor(
    land: MultiPolygon,
    private readonly cell = 0.25,
  ) {
    for (const poly of land)
      for (const ring of poly)
        for (let i = 1; i < ring.length; i++) {
          const [x1, y1] = ring[i - 1]!;
          const [x2, y2] = ring[i]!;
          const id = this.segs.length / 4;
          this.segs.push(x1!, y1!, x2!, y2!);
          for (let b = Math.floor(Math.min(y1!, y2!) * 10); b <= Math.floor(Math.max(y1!, y2!) * 10); b++) {
            let band = this.bands.get(b);
            if (!band) this.bands.set(b, (band = []));
            band.push(id);
          }
          for (let bx = Math.floor(Math.min(x1!, x2!) / cell); bx <= Math.floor(Math.max(x1!, x2!) / cell); bx++)
            for (let by = Math.floor(Math.min(y1!, y2!) / cell); by <= Math.floor(Math.max(y1!, y2!) / cell); by++) {
              const key = this.key(bx, by);
              let list = this.buckets.get(key);
              if (!list) this.buckets.set(key, (list = []));
              list.push(id);
            }
        }
  }

  private key(bx: number, by: number) {
    return (by + 1000) * 4000 + (bx + 2000);
  }

  /** Even-odd rule over the edges of every land polygon that cross the point's latitude. */
  onLand(x: number, y: number): boolean {
    let inside = false;
    const s = this.segs;
    for (const id of this.bands.get(Math.floor(y * 10)) ?? []) {
      const xi = s[id * 4]!, yi = s[id * 4 + 1]!, xj = s[id * 4 + 2]!, yj = s[id * 4 + 3]!;
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
    }
    return inside;
  }

  /** Distance in km from the point to the nearest coastline segment, or Infinity beyond maxKm. */
  distanceKm(x: number, y: number, maxKm: number): number {
    const kx = KM_PER_DEG * Math.cos((y * Math.PI) / 180);
    const rx = Math.ceil(maxKm / Math.max(kx, 1) / this.cell);
    const ry = Math.ceil(maxKm / KM_PER_DEG / this.cell);
    const bx0 = Math.floor(x / this.cell);
    const by0 = Math.floor(y / this.cell);
    let best = Infinity;
    const s = this.segs;
    for (let bx = bx0 - rx; bx <= bx0 + rx; bx++)
      for (let by = by0 - ry; by <= by0 + ry; by++) {
        const list = this.buckets.get(this.key(bx, by));
        if (!list) continue;
        for (const id of list) {
          const d = segmentKm(x, y, kx, s[id * 4]!, s[id * 4 + 1]!, s[id * 4 + 2]!, s[id * 4 + 3]!);
          if (d < best) best = d;
        }
      }
    return best <= maxKm ? best : Infinity;
  }
}
