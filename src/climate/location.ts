import { notFound, NotFoundError } from '../errors.js';
import type { Catalog, Dataset, Scenario } from '../reference/catalog.js';
import { cityFeatureJson, pointCellFeature } from '../reference/features.js';
import { parsePoint } from '../reference/pointParams.js';

/** Where a climate request reads from: the map cell, and how the response names the place. */
export interface Location {
  /** `city` or `feature`, the first key of the response. */
  key: 'city' | 'feature';
  featureJson: string;
  cellId: number;
}

export function scenarioOr404(catalog: Catalog, name: string | undefined): Scenario {
  const s = catalog.scenarioByName.get(name ?? '');
  if (!s) throw new NotFoundError(`Scenario ${name} does not exist.`);
  return s;
}

export function cityLocation(catalog: Catalog, pk: string | undefined, dataset: Dataset): Location {
  const city = /^\d+$/.test(pk ?? '') ? catalog.cityById.get(Number(pk)) : undefined;
  if (!city) throw new NotFoundError(`City ${pk} does not exist.`);
  const cellId = catalog.cityCells.get(city.id)?.get(dataset.name);
  if (cellId === undefined) throw notFound(`No ${dataset.name} data available for city ${city.id} (${city.name}, ${city.admin}).`);
  return { key: 'city', featureJson: cityFeatureJson(city), cellId };
}

/**
 * The cell containing the point or, with `distance` (metres), the nearest cell with data within it.
 * `distanceOf` is the route's parser of its `distance` parameter, run after lat/lon are checked.
 */
export function pointLocation(catalog: Catalog, latText: string | undefined, lonText: string | undefined, distanceOf: (query: unknown) => number, query: unknown, dataset: Dataset): Location {
  const { lat, lon } = parsePoint(latText, lonText);
  const distance = distanceOf(query);
  const match = catalog.mapCells.nearest(lat, lon, distance, dataset.name);
  if (!match) throw notFound(`No ${dataset.name} data available for point (${latText}, ${lonText})`);
  return {
    key: 'feature',
    featureJson: JSON.stringify(pointCellFeature(match.cell, [match.cell.dataset], match.distance)),
    cellId: match.cell.cellId,
  };
}
