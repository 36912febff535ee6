import { GRIDS } from '../reference/grids.js';
import type { ExportPlan } from './exportPlan.js';
import type { NetcdfWhere } from './netcdfWriter.js';

/**
 * Where an export's places sit in its NetCDF arrays. An area is the rectangle of grid rows and
 * columns holding its cells (`(model, step, lat, lon)`; cells outside the area stay missing);
 * places are a list (`(model, location, step)`), several of which may read one cell.
 */
export interface PlaceGrid {
  /** Positions per model and step: cells of the rectangle, or locations. */
  size: number;
  /** The distinct cells to read. */
  cellIds: number[];
  positionsOf(cellId: number): number[];
  /** Flat index of a value in the variable's array. */
  index(model: number, step: number, position: number, steps: number): number;
  where: NetcdfWhere;
}

export function placeGrid(plan: ExportPlan): PlaceGrid {
  const where = plan.where;
  if (where.kind === 'area') {
    const grid = GRIDS[plan.dataset]!;
    const [r0, r1] = where.rows;
    const [c0, c1] = where.cols;
    const nx = c1 - c0 + 1;
    const ny = r1 - r0 + 1;
    const at = new Map(where.cells.map((c) => [c.cellId, [(Math.floor(c.cellId / grid.cols) - r0) * nx + ((c.cellId % grid.cols) - c0)]]));
    return {
      size: nx * ny,
      cellIds: where.cells.map((c) => c.cellId),
      positionsOf: (id) => at.get(id) ?? [],
      index: (m, t, p, steps) => (m * steps + t) * nx * ny + p,
      where: {
        kind: 'area',
        lats: Array.from({ length: ny }, (_, i) => grid.lat0 + (r0 + i + 0.5) * grid.size),
        lons: Array.from({ length: nx }, (_, i) => grid.lon0 + (c0 + i + 0.5) * grid.size),
      },
    };
  }
  const locations = where.locations;
  const at = new Map<number, number[]>();
  locations.forEach((l, i) => at.set(l.cellId, [...(at.get(l.cellId) ?? []), i]));
  return {
    size: locations.length,
    cellIds: [...at.keys()],
    positionsOf: (id) => at.get(id) ?? [],
    index: (m, t, p, steps) => (m * locations.length + p) * steps + t,
    where: {
      kind: 'locations',
      labels: locations.map((l) => l.label),
      names: locations.map((l) => l.name),
      cityIds: locations.map((l) => l.cityId ?? -1),
      cellIds: locations.map((l) => l.cellId),
      lats: locations.map((l) => l.lat),
      lons: locations.map((l) => l.lon),
    },
  };
}

const DAY_MS = 86_400_000;
const EPOCH_1950 = Date.UTC(1950, 0, 1);

/** Every day of the years (sorted), as days since 1950-01-01 in the proleptic Gregorian calendar. */
export function daysSince1950(years: number[]): number[] {
  const out: number[] = [];
  for (const y of years) {
    const start = (Date.UTC(y, 0, 1) - EPOCH_1950) / DAY_MS;
    const end = (Date.UTC(y + 1, 0, 1) - EPOCH_1950) / DAY_MS;
    for (let d = start; d < end; d++) out.push(d);
  }
  return out;
}
