import { cityLocation, type Location } from '../climate/location.js';
import { httpErrorOf } from '../http/errors.js';
import type { Catalog, Dataset } from '../reference/catalog.js';
import { distanceMeters } from '../reference/cityQuery.js';
import { pointCellFeature } from '../reference/features.js';
import { normalizeLon } from '../reference/grids.js';
import type { BatchPlace } from './batchBody.js';

/** A batch place found on the dataset's grid: the cell to read and how its result shows it. */
export interface ResolvedPlace {
  place: BatchPlace;
  location: Location;
  /** The map cell read, as GET /api/map-cell/{lat}/{lon}/ shows it (distance from the place given). */
  mapCellJson: string;
}

/** A place without data: its result carries this instead of `data`, and the batch goes on. */
export interface PlaceError {
  place: BatchPlace;
  status: number;
  detail: string;
}

/**
 * The map cell of each place, with the single endpoints' rules and 404 sentences: a city's cell in
 * the dataset; a point's containing cell or, with `distance`, the nearest with data within it.
 */
export function resolvePlace(catalog: Catalog, place: BatchPlace, dataset: Dataset, distance: number): ResolvedPlace | PlaceError {
  try {
    if (place.kind === 'city') {
      const location = cityLocation(catalog, String(place.city), dataset);
      const city = catalog.cityById.get(place.city)!;
      const cell = catalog.mapCells.get(dataset.name, location.cellId)!;
      const lon = normalizeLon(city.lon);
      const mapCellJson = JSON.stringify(pointCellFeature(cell, [cell.dataset], distanceMeters(city.lat, lon, cell.lat, cell.lon)));
      return { place, location, mapCellJson };
    }
    const match = catalog.mapCells.nearest(place.lat, place.lon, distance, dataset.name);
    if (!match) return { place, status: 404, detail: `No ${dataset.name} data available for point (${place.lat}, ${place.lon})` };
    const mapCellJson = JSON.stringify(pointCellFeature(match.cell, [match.cell.dataset], match.distance));
    return { place, location: { key: 'feature', featureJson: mapCellJson, cellId: match.cell.cellId }, mapCellJson };
  } catch (err) {
    if (httpErrorOf(err)?.status === 404) return { place, status: 404, detail: (err as Error).message };
    throw err;
  }
}

export const isResolved = (p: ResolvedPlace | PlaceError): p is ResolvedPlace => 'location' in p;
