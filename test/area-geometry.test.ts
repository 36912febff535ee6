import { describe, expect, it } from 'vitest';
import { boxCover, coverOf, polygonSphereArea, ringSphereArea } from '../src/areas/cells.js';
import { parseAreaGeoJson, type Ring } from '../src/areas/geometry.js';
import { BadRequestError } from '../src/errors.js';
import { GRIDS } from '../src/reference/grids.js';

/** The checks of posted areas and the cover of a grid, on hand-made shapes. */

const NEX = GRIDS['NEX-GDDP']!;
const RAD = Math.PI / 180;
const rect = (x0: number, y0: number, x1: number, y1: number): Ring => [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]];
const rectArea = (x0: number, y0: number, x1: number, y1: number) => (x1 - x0) * RAD * (Math.sin(y1 * RAD) - Math.sin(y0 * RAD));
const cellOf = (lat: number, lon: number) => Math.floor((lat - NEX.lat0) / NEX.size) * NEX.cols + Math.floor((lon - NEX.lon0) / NEX.size);
/** The cells within a degree of the point (the cells "with data" of a test). */
const near = (lat: number, lon: number) => {
  const ids = new Set<number>();
  for (let y = lat - 1; y <= lat + 1; y += NEX.size) for (let x = lon - 1; x <= lon + 1; x += NEX.size) ids.add(cellOf(y, x));
  return Int32Array.from(ids).sort();
};

function rejects(body: unknown, message: RegExp) {
  try {
    parseAreaGeoJson(body, 10_000);
  } catch (err) {
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).message).toMatch(message);
    return;
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

describe('area on the sphere', () => {
  it('is the closed form for lon/lat rectangles, positive counter-clockwise, holes taken off', () => {
    expect(ringSphereArea(rect(10, 20, 12, 25))).toBeCloseTo(rectArea(10, 20, 12, 25), 15);
    expect(ringSphereArea([...rect(10, 20, 12, 25)].reverse())).toBeCloseTo(-rectArea(10, 20, 12, 25), 15);
    // A sliver (nearly flat edges) keeps its precision.
    expect(ringSphereArea(rect(0, 45, 1e-3, 45 + 1e-9)) / rectArea(0, 45, 1e-3, 45 + 1e-9)).toBeCloseTo(1, 6);
    expect(polygonSphereArea([rect(0, 0, 4, 4), [...rect(1, 1, 2, 2)].reverse()])).toBeCloseTo(rectArea(0, 0, 4, 4) - rectArea(1, 1, 2, 2), 15);
  });
});

describe('cover of a grid', () => {
  it('weights a polygon smaller than a cell by its part in each cell it touches', () => {
    // 0.1 x 0.1 degrees straddling the line lon = 10.0 between two cells, 3/4 of it west.
    const cover = coverOf(NEX, [[rect(9.925, 45.05, 10.025, 45.15)]], near(45, 10));
    expect(cover.count).toBe(2);
    const west = cover.cells.find((c) => c.cellId === cellOf(45.1, 9.9))!;
    const east = cover.cells.find((c) => c.cellId === cellOf(45.1, 10.1))!;
    expect(west.area).toBeCloseTo(rectArea(9.925, 45.05, 10, 45.15), 15);
    expect(east.area).toBeCloseTo(rectArea(10, 45.05, 10.025, 45.15), 15);
  });

  it('counts overlapping parts of a MultiPolygon once', () => {
    const a = rect(-1.1, 50.2, -0.3, 50.9);
    const once = coverOf(NEX, [[a]], near(50.5, -0.7));
    const twice = coverOf(NEX, [[a], [rect(-1.0, 50.3, -0.4, 50.8)]], near(50.5, -0.7));
    expect(twice).toEqual(once);
    expect(once.count).toBe(4 * 4);
  });

  it('counts no cell a polygon only touches at a corner or along an edge', () => {
    // Two squares sharing only the point (0.25, 0.25), a grid corner.
    const corner = coverOf(NEX, [[rect(0.05, 0.05, 0.25, 0.25)], [rect(0.25, 0.25, 0.45, 0.45)]], near(0.25, 0.25));
    expect(corner.count).toBe(2);
    expect(corner.cells.map((c) => c.cellId).sort((a, b) => a - b)).toEqual([cellOf(0.1, 0.1), cellOf(0.3, 0.3)]);
    // A cell exactly: its neighbours, which share its edges, are not covered.
    const cell = coverOf(NEX, [[rect(0.25, 0.25, 0.5, 0.5)]], near(0.25, 0.25));
    expect(cell).toEqual({ count: 1, cells: [{ cellId: cellOf(0.3, 0.3), area: rectArea(0.25, 0.25, 0.5, 0.5) }] });
  });

  it('counts cells without data but weighs only those with data', () => {
    const cover = coverOf(NEX, [[rect(20, 10, 21, 11)]], Int32Array.of(cellOf(10.1, 20.1)));
    expect(cover.count).toBe(16);
    expect(cover.cells).toEqual([{ cellId: cellOf(10.1, 20.1), area: rectArea(20, 10, 20.25, 10.25) }]);
  });
});

describe("a bbox's cells by arithmetic (boxCover, the maps')", () => {
  it("are coverOf's count and cells of the rectangle, on every grid: edges on grid lines, within one cell, past the grid", () => {
    // A deterministic generator: the same boxes every run.
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    let compared = 0;
    for (const grid of Object.values(GRIDS)) {
      const { size, lat0, lon0, rows, cols } = grid;
      // A block of cells "with data": every other cell of a 40 x 40 block in the grid's middle.
      const r = Math.floor(rows / 2);
      const c = Math.floor(cols / 2);
      const wanted: number[] = [];
      for (let i = 0; i < 40; i++) for (let j = 0; j < 40; j++) if ((i + j) % 2 === 0) wanted.push((r + i) * cols + c + j);
      const ids = Int32Array.from(wanted).sort();
      const snap = (x: number) => (random() < 0.3 ? Math.round(x / size) * size : x);
      const boxes: [number, number, number, number][] = [
        // One cell exactly, a sliver within one cell, a box hanging over the grid's south-west corner.
        [lon0 + (c + 3) * size, lat0 + (r + 3) * size, lon0 + (c + 4) * size, lat0 + (r + 4) * size],
        [lon0 + (c + 3.2) * size, lat0 + (r + 3.1) * size, lon0 + (c + 3.3) * size, lat0 + (r + 3.15) * size],
        [Math.max(-180, lon0 - 1), Math.max(-90, lat0 - 1), lon0 + 2 * size + 0.01, lat0 + 3 * size],
      ];
      for (let k = 0; k < 60; k++) {
        const west = snap(lon0 + (c - 5 + random() * 50) * size);
        const south = snap(lat0 + (r - 5 + random() * 50) * size);
        boxes.push([west, south, west + (0.05 + random() * 20) * size, south + (0.05 + random() * 20) * size]);
      }
      for (const box of boxes) {
        const [w, s, e, n] = box;
        const clipped = coverOf(grid, [[rect(w, s, e, n)]], ids);
        expect(boxCover(grid, box, ids), `${grid.dataset} ${box.join(',')}`).toEqual({ count: clipped.count, ids: clipped.cells.map((x) => x.cellId) });
        compared++;
      }
    }
    expect(compared).toBe(4 * 63);
  });
});

describe('posted geometry checks', () => {
  const poly = (...rings: Ring[]) => ({ type: 'Polygon', coordinates: rings });

  it('accepts holes, a hole touching the outer ring at a point, and Features', () => {
    expect(parseAreaGeoJson(poly(rect(0, 0, 4, 4), rect(1, 1, 2, 2)), 100).polygons).toHaveLength(1);
    expect(parseAreaGeoJson(poly(rect(0, 0, 4, 4), [[0, 2], [1, 1], [1, 3], [0, 2]]), 100).polygons[0]).toHaveLength(2);
    expect(parseAreaGeoJson({ type: 'Feature', properties: null, geometry: poly(rect(0, 0, 1, 1)) }, 100).geometry.type).toBe('Polygon');
    // A repeated position is no edge of its own.
    expect(parseAreaGeoJson(poly([[0, 0], [1, 0], [1, 0], [1, 1], [0, 0]]), 100).polygons[0]![0]).toHaveLength(4);
  });

  it('rejects rings that cross, touch or fold back on themselves, and holes crossing the outer ring', () => {
    rejects(poly([[0, 0], [2, 2], [2, 0], [0, 2], [0, 0]]), /intersects itself at lon\/lat \(1, 1\)/);
    // A figure eight through one vertex.
    rejects(poly([[0, 0], [1, 1], [2, 0], [2, 2], [1, 1], [0, 2], [0, 0]]), /intersects itself at lon\/lat \(1, 1\)/);
    // A spike: out along an edge and straight back.
    rejects(poly([[0, 0], [2, 0], [3, 0], [2, 0.0], [2, 2], [0, 0]]), /intersects itself/);
    rejects(poly(rect(0, 0, 4, 4), rect(3, 1, 5, 2)), /intersects itself/);
    rejects({ type: 'MultiPolygon', coordinates: [[rect(0, 0, 1, 1)], [[[5, 5], [6, 6], [6, 5], [5, 6], [5, 5]]]] }, /boundary of polygon 2 intersects itself/);
  });

  it('rejects what is not a polygon, and counts vertices against the limit', () => {
    rejects({ type: 'MultiPolygon', coordinates: [] }, /non-empty array of polygons/);
    rejects(poly(), /non-empty array of linear rings/);
    rejects({ type: 'Polygon', coordinates: 'x' }, /non-empty array of linear rings/);
    rejects({ type: 'GeometryCollection', geometries: [] }, /got a GeometryCollection/);
    rejects(poly(rect(-181, 0, 1, 1)), /\[-181, 0\], out of range/);
    expect(() => parseAreaGeoJson(poly(rect(0, 0, 1, 1)), 3)).toThrow(/has 4 vertices; the limit is 3 \(MAX_AREA_VERTICES\)/);
    expect(parseAreaGeoJson(poly(rect(0, 0, 1, 1)), 4).polygons).toHaveLength(1);
  });
});
