import { badRequest } from '../errors.js';

/**
 * The area of a request as GeoJSON (RFC 7946) polygons in lon/lat degrees, checked so that every
 * problem a client can fix gets a 400 that says what and where: the wrong type, a malformed or
 * unclosed ring, a position out of range, too many vertices, a boundary that crosses itself.
 */
export type Position = [number, number];
export type Ring = Position[];
export type Polygon = Ring[];
export type MultiPolygon = Polygon[];

export interface AreaGeometry {
  /** The geometry as asked (a Polygon or MultiPolygon), for the answer's Feature. */
  geometry: { type: 'Polygon' | 'MultiPolygon'; coordinates: unknown };
  polygons: MultiPolygon;
}

const GEOMETRY_TYPES = 'a GeoJSON Polygon, MultiPolygon, or a Feature whose geometry is one of them';

/** A GeoJSON object (a POST body) as the request's area; geometries and Features only. */
export function parseAreaGeoJson(body: unknown, maxVertices: number): AreaGeometry {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest(`The request body must be ${GEOMETRY_TYPES} (JSON); got ${describe(body)}.`);
  const obj = body as Record<string, unknown>;
  const geometry = obj.type === 'Feature' ? obj.geometry : body;
  if (typeof geometry !== 'object' || geometry === null) throw badRequest(`The Feature's geometry must be a GeoJSON Polygon or MultiPolygon; got ${describe(geometry)}.`);
  const g = geometry as Record<string, unknown>;
  if (g.type !== 'Polygon' && g.type !== 'MultiPolygon') {
    throw badRequest(`The area must be ${GEOMETRY_TYPES}; got ${typeof g.type === 'string' ? `a ${g.type}` : describe(g)}.`);
  }
  const polygons = g.type === 'Polygon' ? [polygonOf(g.coordinates, 'The Polygon')] : multiPolygonOf(g.coordinates);
  const vertices = polygons.reduce((n, p) => n + p.reduce((m, r) => m + r.length - 1, 0), 0);
  if (vertices > maxVertices) throw badRequest(`The area has ${vertices} vertices; the limit is ${maxVertices} (MAX_AREA_VERTICES). Simplify the geometry.`);
  polygons.forEach((p, i) => checkSimple(p, polygons.length > 1 ? `polygon ${i + 1}` : 'the polygon'));
  return { geometry: { type: g.type, coordinates: g.coordinates }, polygons };
}

/** A trusted geometry of the catalog (a region, a city boundary): parsed, not checked. */
export function catalogPolygons(geometryJson: string): MultiPolygon {
  const g = JSON.parse(geometryJson) as { type: string; coordinates: unknown };
  return g.type === 'Polygon' ? [g.coordinates as Polygon] : (g.coordinates as MultiPolygon);
}

/** `minlon,minlat,maxlon,maxlat` as a rectangle. */
export function bboxPolygon(value: string): AreaGeometry & { bbox: [number, number, number, number] } {
  const nums = value.split(',').map((p) => (p.trim() === '' ? NaN : Number(p)));
  const [a, b, c, d] = nums as [number, number, number, number];
  if (nums.length !== 4 || !nums.every(Number.isFinite)) throw badRequest(`bbox must be minlon,minlat,maxlon,maxlat (four numbers); got '${value}'.`);
  if (a < -180 || c > 180 || b < -90 || d > 90) throw badRequest(`bbox must lie within longitudes -180..180 and latitudes -90..90; got '${value}'.`);
  if (!(a < c && b < d)) throw badRequest(`bbox must have minlon < maxlon and minlat < maxlat; got '${value}'.`);
  const ring: Ring = [[a, b], [c, b], [c, d], [a, d], [a, b]];
  return { geometry: { type: 'Polygon', coordinates: [ring] }, polygons: [[ring]], bbox: [a, b, c, d] };
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return typeof (v as { type?: unknown }).type === 'string' ? `a ${(v as { type: string }).type}` : 'an object without a GeoJSON type';
  return `a ${typeof v}`;
}

function multiPolygonOf(coordinates: unknown): MultiPolygon {
  if (!Array.isArray(coordinates) || coordinates.length === 0) throw badRequest('The MultiPolygon coordinates must be a non-empty array of polygons.');
  return coordinates.map((p, i) => polygonOf(p, `Polygon ${i + 1} of the MultiPolygon`));
}

function polygonOf(coordinates: unknown, name: string): Polygon {
  if (!Array.isArray(coordinates) || coordinates.length === 0) throw badRequest(`${name} must be a non-empty array of linear rings (the outer ring, then any holes).`);
  return coordinates.map((ring, i) => ringOf(ring, `${name}, ring ${i + 1},`));
}

function ringOf(ring: unknown, name: string): Ring {
  if (!Array.isArray(ring)) throw badRequest(`${name} must be an array of [lon, lat] positions.`);
  const out: Ring = [];
  for (const p of ring) {
    if (!Array.isArray(p) || p.length < 2 || typeof p[0] !== 'number' || typeof p[1] !== 'number' || !Number.isFinite(p[0]) || !Number.isFinite(p[1])) {
      throw badRequest(`${name} has a position that is not [lon, lat] numbers: ${JSON.stringify(p)}.`);
    }
    const [lon, lat] = p as [number, number];
    if (lon < -180 || lon > 180 || lat < -90 || lat > 90) {
      throw badRequest(`${name} has the position [${lon}, ${lat}], out of range: longitudes must lie within -180..180 and latitudes within -90..90.`);
    }
    // A repeated position adds no edge; dropping it keeps the crossing test to real edges.
    const last = out[out.length - 1];
    if (!last || last[0] !== lon || last[1] !== lat) out.push([lon, lat]);
  }
  if (ring.length > 0 && (out.length < 2 || out[0]![0] !== out[out.length - 1]![0] || out[0]![1] !== out[out.length - 1]![1])) {
    throw badRequest(`${name} is not closed: its last position must repeat its first.`);
  }
  if (out.length < 4) throw badRequest(`${name} has ${Math.max(0, out.length - 1)} distinct positions; a ring needs at least 3 (and the first repeated at the end).`);
  return out;
}

type Edge = { ring: number; i: number; n: number; ax: number; ay: number; bx: number; by: number; minX: number; maxX: number; minY: number; maxY: number };

const orient = (ax: number, ay: number, bx: number, by: number, cx: number, cy: number) => (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
const within = (a: number, b: number, x: number) => Math.min(a, b) <= x && x <= Math.max(a, b);

/**
 * Where two edges meet, or undefined: a crossing anywhere, and for edges of the same ring that are
 * not neighbours also a touch (a ring through one point twice is not simple). Edges of different
 * rings may touch at a point (a hole touching the outer ring), as in the OGC simple-features rules.
 */
function meeting(e: Edge, f: Edge): Position | undefined {
  const o1 = orient(e.ax, e.ay, e.bx, e.by, f.ax, f.ay);
  const o2 = orient(e.ax, e.ay, e.bx, e.by, f.bx, f.by);
  const o3 = orient(f.ax, f.ay, f.bx, f.by, e.ax, e.ay);
  const o4 = orient(f.ax, f.ay, f.bx, f.by, e.bx, e.by);
  if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))) {
    const t = o3 / (o3 - o4);
    return [e.ax + t * (e.bx - e.ax), e.ay + t * (e.by - e.ay)];
  }
  const onE = (x: number, y: number, o: number) => o === 0 && within(e.ax, e.bx, x) && within(e.ay, e.by, y);
  const onF = (x: number, y: number, o: number) => o === 0 && within(f.ax, f.bx, x) && within(f.ay, f.by, y);
  const touches: Position[] = [];
  if (onE(f.ax, f.ay, o1)) touches.push([f.ax, f.ay]);
  if (onE(f.bx, f.by, o2)) touches.push([f.bx, f.by]);
  if (onF(e.ax, e.ay, o3)) touches.push([e.ax, e.ay]);
  if (onF(e.bx, e.by, o4)) touches.push([e.bx, e.by]);
  if (touches.length === 0) return undefined;
  if (e.ring === f.ring) return touches[0];
  // Different rings: a shared stretch (collinear overlap) is a crossing of boundaries, a point is not.
  const distinct = new Set(touches.map(([x, y]) => `${x},${y}`));
  return distinct.size > 1 ? touches[0] : undefined;
}

/**
 * 400 when a polygon's boundary meets itself: edges sorted by their west end, each compared with the
 * edges whose x-range overlaps its own (a sweep: near n log n for real outlines, where edges are short).
 */
function checkSimple(polygon: Polygon, name: string) {
  const edges: Edge[] = [];
  polygon.forEach((ring, r) => {
    const n = ring.length - 1;
    for (let i = 0; i < n; i++) {
      const [ax, ay] = ring[i]!;
      const [bx, by] = ring[i + 1]!;
      edges.push({ ring: r, i, n, ax, ay, bx, by, minX: Math.min(ax, bx), maxX: Math.max(ax, bx), minY: Math.min(ay, by), maxY: Math.max(ay, by) });
    }
  });
  edges.sort((a, b) => a.minX - b.minX);
  for (let k = 0; k < edges.length; k++) {
    const e = edges[k]!;
    for (let m = k + 1; m < edges.length && edges[m]!.minX <= e.maxX; m++) {
      const f = edges[m]!;
      if (f.minY > e.maxY || f.maxY < e.minY) continue;
      if (e.ring === f.ring) {
        const d = Math.abs(e.i - f.i);
        // Neighbours share a vertex; they are wrong only when they fold back over each other.
        if (d === 1 || d === e.n - 1) {
          if (e.n > 2 && orient(e.ax, e.ay, e.bx, e.by, f.ax, f.ay) === 0 && orient(e.ax, e.ay, e.bx, e.by, f.bx, f.by) === 0) {
            const shared = e.i === (f.i + 1) % e.n ? [e.ax, e.ay] : [e.bx, e.by];
            const other = e.i === (f.i + 1) % e.n ? [f.ax, f.ay] : [f.bx, f.by];
            const far = e.i === (f.i + 1) % e.n ? [e.bx, e.by] : [e.ax, e.ay];
            // Collinear neighbours overlap when both go out of the shared vertex the same way.
            if ((other[0]! - shared[0]!) * (far[0]! - shared[0]!) + (other[1]! - shared[1]!) * (far[1]! - shared[1]!) > 0) selfIntersecting(name, shared as Position);
          }
          continue;
        }
      }
      const p = meeting(e, f);
      if (p) selfIntersecting(name, p);
    }
  }
}

function selfIntersecting(name: string, [x, y]: Position): never {
  const where = `(${Number(x.toFixed(6))}, ${Number(y.toFixed(6))})`;
  throw badRequest(`The area is not a valid polygon: the boundary of ${name} intersects itself at lon/lat ${where}. A ring must not cross or touch itself, nor cross another ring.`);
}
