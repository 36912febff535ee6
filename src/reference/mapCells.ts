import { distanceMeters, EARTH_RADIUS_M } from './sphere.js';
import { cellAt, eachInBlock, GRIDS, lowerBound, normalizeLon, type Grid } from './grids.js';

/** A map cell with data: a dataset's grid cell, its centre and its proximity to the sea. */
export interface MapCell {
  dataset: string;
  cellId: number;
  lat: number;
  lon: number;
  ocean: boolean;
  coastal: boolean;
}

export interface CellMatch {
  cell: MapCell;
  distance: number;
}

/** One dataset's cells with data: ids ascending, and per cell its centre and flags (OCEAN | COASTAL). */
export interface DatasetCellArrays {
  name: string;
  ids: Int32Array;
  lats: Float64Array;
  lons: Float64Array;
  flags: Uint8Array;
}

export const OCEAN = 1;
export const COASTAL = 2;
const DEG = Math.PI / 180;

/**
 * One dataset's cells with data in typed arrays sorted by cell id, which is row-major on the
 * grid: a grid row's cells between two columns are one run of the ids, found by binary search.
 * 21 bytes a cell, against a few hundred for an object in a Map keyed by text.
 */
class DatasetCells {
  constructor(
    readonly name: string,
    readonly grid: Grid,
    readonly ids: Int32Array,
    private readonly lats: Float64Array,
    private readonly lons: Float64Array,
    private readonly flags: Uint8Array,
  ) {}

  indexOf(id: number): number {
    const i = lowerBound(this.ids, id);
    return i < this.ids.length && this.ids[i] === id ? i : -1;
  }

  cell(i: number): MapCell {
    const f = this.flags[i]!;
    return { dataset: this.name, cellId: this.ids[i]!, lat: this.lats[i]!, lon: this.lons[i]!, ocean: (f & OCEAN) !== 0, coastal: (f & COASTAL) !== 0 };
  }

  distanceTo(i: number, lat: number, lon: number): number {
    return distanceMeters(lat, lon, this.lats[i]!, this.lons[i]!);
  }

  /** Calls `visit` with the position of every cell in grid row `row`, columns c0..c1. */
  eachInRow(row: number, c0: number, c1: number, visit: (i: number) => void) {
    eachInBlock(this.ids, this.grid, row, row, c0, c1, visit);
  }
}

/**
 * Where a point's cells within `distance` metres can be on a grid: the rows whose centres are in
 * the latitude band, and the column ranges (one, or two across the date line) whose centres are
 * in the longitude span, each a cell wider than needed for rounding. A band reaching a pole, or
 * a span of the whole circle, takes every column.
 */
function searchWindow(grid: Grid, lat: number, lon: number, distance: number): { rows: [number, number]; cols: [number, number][] } {
  const delta = distance / EARTH_RADIUS_M;
  const all = { rows: [0, grid.rows - 1] as [number, number], cols: [[0, grid.cols - 1] as [number, number]] };
  if (delta >= Math.PI) return all;
  const south = lat - delta / DEG;
  const north = lat + delta / DEG;
  const row = (y: number) => (y - grid.lat0) / grid.size - 0.5;
  const rows: [number, number] = [Math.max(0, Math.ceil(row(south)) - 1), Math.min(grid.rows - 1, Math.floor(row(north)) + 1)];
  if (south <= -90 || north >= 90) return { rows, cols: all.cols };
  const spread = Math.sin(delta) / Math.cos(lat * DEG);
  const half = spread >= 1 ? 180 : Math.asin(spread) / DEG;
  if (2 * half + 4 * grid.size >= 360) return { rows, cols: all.cols };
  const col = (x: number) => (x - grid.lon0) / grid.size - 0.5;
  const cols: [number, number][] = [];
  for (const shift of [-360, 0, 360]) {
    const c0 = Math.max(0, Math.ceil(col(lon - half + shift)) - 1);
    const c1 = Math.min(grid.cols - 1, Math.floor(col(lon + half + shift)) + 1);
    if (c0 <= c1) cols.push([c0, c1]);
  }
  return { rows, cols };
}

/**
 * The catalog's map cells with data, per dataset, and the point lookups over them: the cell
 * containing a point, and the cells within a distance found through the grid (the rows and
 * columns the distance can reach), so a lookup costs the same with 2,000 cells or 200,000.
 */
export class MapCells {
  private constructor(private readonly datasets: Map<string, DatasetCells>) {}

  /** From each dataset's arrays; a dataset without a grid, or ids not strictly ascending, are refused. */
  static of(arrays: DatasetCellArrays[]): MapCells {
    const datasets = new Map<string, DatasetCells>();
    for (const { name, ids, lats, lons, flags } of [...arrays].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const grid = GRIDS[name];
      if (!grid) throw new Error(`The catalog's map cells name dataset ${name}, which has no grid.`);
      for (let k = 1; k < ids.length; k++) if (ids[k]! <= ids[k - 1]!) throw new Error(`The catalog's ${name} map cells are not in increasing id order at cell ${ids[k]}.`);
      if (lats.length !== ids.length || lons.length !== ids.length || flags.length !== ids.length) throw new Error(`The catalog's ${name} map cells have columns of different lengths.`);
      datasets.set(name, new DatasetCells(name, grid, ids, lats, lons, flags));
    }
    return new MapCells(datasets);
  }

  /** The cell if it has data. */
  get(dataset: string, cellId: number): MapCell | undefined {
    const d = this.datasets.get(dataset);
    const i = d ? d.indexOf(cellId) : -1;
    return i < 0 ? undefined : d!.cell(i);
  }

  has(dataset: string, cellId: number): boolean {
    return (this.datasets.get(dataset)?.indexOf(cellId) ?? -1) >= 0;
  }

  /** How many cells have data, in one dataset or in all. */
  count(dataset?: string): number {
    if (dataset !== undefined) return this.datasets.get(dataset)?.ids.length ?? 0;
    let n = 0;
    for (const d of this.datasets.values()) n += d.ids.length;
    return n;
  }

  /** The cell's position in ids(dataset), or -1 when it has no data. */
  position(dataset: string, cellId: number): number {
    return this.datasets.get(dataset)?.indexOf(cellId) ?? -1;
  }

  /** The datasets with cells with data, by name. */
  names(): string[] {
    return [...this.datasets.keys()];
  }

  /** The dataset's cells with data, by increasing id (do not modify). */
  ids(dataset: string): Int32Array {
    return this.datasets.get(dataset)?.ids ?? new Int32Array(0);
  }

  /** Every cell with data, dataset by dataset (by name), by increasing id. */
  *all(): Iterable<MapCell> {
    for (const d of this.datasets.values()) for (let i = 0; i < d.ids.length; i++) yield d.cell(i);
  }

  /**
   * The cells with data for a point: per dataset, the cell containing the point; with a positive
   * `distance` (metres), also every cell with data whose centre lies within it. Ordered by
   * increasing distance; at equal distances the containing cells first (in GRIDS order), then
   * the others by dataset name and cell id.
   */
  near(lat: number, lon: number, distance: number, dataset?: string): CellMatch[] {
    const x = normalizeLon(lon);
    const found = new Map<string, CellMatch & { rank: [number, number, number] }>();
    const order = [...this.datasets.keys()];
    Object.values(GRIDS).forEach((grid, g) => {
      if (dataset !== undefined && grid.dataset !== dataset) return;
      const d = this.datasets.get(grid.dataset);
      const id = cellAt(grid, lat, x);
      const i = d && id !== undefined ? d.indexOf(id) : -1;
      if (i >= 0) found.set(`${grid.dataset}:${id}`, { cell: d!.cell(i), distance: d!.distanceTo(i, lat, x), rank: [0, g, 0] });
    });
    if (distance > 0) {
      for (const d of this.datasets.values()) {
        if (dataset !== undefined && d.name !== dataset) continue;
        const { rows, cols } = searchWindow(d.grid, lat, x, distance);
        const rank = order.indexOf(d.name);
        for (let row = rows[0]; row <= rows[1]; row++) {
          for (const [c0, c1] of cols) {
            d.eachInRow(row, c0, c1, (i) => {
              const m = d.distanceTo(i, lat, x);
              const key = `${d.name}:${d.ids[i]}`;
              if (m <= distance && !found.has(key)) found.set(key, { cell: d.cell(i), distance: m, rank: [1, rank, d.ids[i]!] });
            });
          }
        }
      }
    }
    const byRank = (a: [number, number, number], b: [number, number, number]) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
    return [...found.values()].sort((a, b) => a.distance - b.distance || byRank(a.rank, b.rank)).map(({ cell, distance: m }) => ({ cell, distance: m }));
  }

  /**
   * The first of near(lat, lon, distance, dataset), without listing the rest: rows are searched
   * outwards from the point's and given up once their latitude alone is farther than the best
   * cell found.
   */
  nearest(lat: number, lon: number, distance: number, dataset: string): CellMatch | undefined {
    const d = this.datasets.get(dataset);
    if (!d) return undefined;
    const x = normalizeLon(lon);
    const id = cellAt(d.grid, lat, x);
    const containing = id === undefined ? -1 : d.indexOf(id);
    let best = containing;
    let bestDistance = containing >= 0 ? d.distanceTo(containing, lat, x) : Infinity;
    if (distance > 0) {
      const { rows, cols } = searchWindow(d.grid, lat, x, distance);
      const limit = () => Math.min(distance, bestDistance);
      const visit = (i: number) => {
        const m = d.distanceTo(i, lat, x);
        // Ties: the containing cell first, then the lowest id (rows and columns come in any order here).
        if (m <= distance && (m < bestDistance || (m === bestDistance && best !== containing && d.ids[i]! < d.ids[best]!))) {
          best = i;
          bestDistance = m;
        }
      };
      // A row's cells are no nearer than its centre latitude's distance, less a cell for rounding.
      const reach = (row: number) => EARTH_RADIUS_M * DEG * Math.max(0, Math.abs(d.grid.lat0 + (row + 0.5) * d.grid.size - lat) - d.grid.size);
      const start = Math.min(rows[1], Math.max(rows[0], Math.floor((lat - d.grid.lat0) / d.grid.size)));
      for (let row = start; row <= rows[1] && reach(row) <= limit(); row++) for (const [c0, c1] of cols) d.eachInRow(row, c0, c1, visit);
      for (let row = start - 1; row >= rows[0] && reach(row) <= limit(); row--) for (const [c0, c1] of cols) d.eachInRow(row, c0, c1, visit);
    }
    return best >= 0 ? { cell: d.cell(best), distance: bestDistance } : undefined;
  }
}
