import type { Catalog, MapCell } from './catalog.js';
import { cellKey } from './catalog.js';
import { distanceMeters } from './cityQuery.js';
import { cellAt, GRIDS, normalizeLon } from './grids.js';

export interface CellMatch {
  cell: MapCell;
  distance: number;
}

/**
 * The map cells with data for a point: per dataset, the cell containing the point; with a
 * positive `distance` (metres), also every cell with data whose centre lies within it.
 * Ordered by increasing distance from the point.
 */
export function cellsNear(catalog: Catalog, lat: number, lon: number, distance: number, dataset?: string): CellMatch[] {
  const x = normalizeLon(lon);
  const found = new Map<string, CellMatch>();
  for (const grid of Object.values(GRIDS)) {
    if (dataset !== undefined && grid.dataset !== dataset) continue;
    const id = cellAt(grid, lat, x);
    if (id === undefined) continue;
    const cell = catalog.cells.get(cellKey(grid.dataset, id));
    if (cell?.hasData) found.set(cellKey(cell.dataset, id), { cell, distance: distanceMeters(lat, x, cell.lat, cell.lon) });
  }
  if (distance > 0) {
    for (const cell of catalog.cellsWithData) {
      if (dataset !== undefined && cell.dataset !== dataset) continue;
      const d = distanceMeters(lat, x, cell.lat, cell.lon);
      if (d <= distance) found.set(cellKey(cell.dataset, cell.cellId), { cell, distance: d });
    }
  }
  return [...found.values()].sort((a, b) => a.distance - b.distance);
}
