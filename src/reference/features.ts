import type { City, MapCell, Region } from './catalog.js';
import { normalizeLon } from './grids.js';

/** GeoJSON shapes of the reference resources, as the spec describes them. */

export function cityFeature(city: City) {
  return {
    id: city.id,
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [normalizeLon(city.lon), city.lat] },
    properties: {
      proximity: { ocean: city.ocean, coastal: city.coastal },
      name: city.name,
      admin: city.admin,
      population: city.population,
      datasets: city.datasets,
      region: city.regionId,
    },
  };
}

const cityJsonCache = new WeakMap<City, string>();

/** The city's Feature as JSON text; list pages concatenate these instead of re-serialising. */
export function cityFeatureJson(city: City): string {
  let json = cityJsonCache.get(city);
  if (json === undefined) {
    json = JSON.stringify(cityFeature(city));
    cityJsonCache.set(city, json);
  }
  return json;
}

export function featureCollectionJson(count: number, next: string | null, previous: string | null, features: string[]) {
  return `{"type":"FeatureCollection","count":${count},"next":${JSON.stringify(next)},"previous":${JSON.stringify(previous)},"features":[${features.join(',')}]}`;
}

const point = (cell: MapCell) => ({ type: 'Point', coordinates: [normalizeLon(cell.lon), cell.lat] });

/** A map cell as the city map-cell endpoints show it. */
export function cityCellFeature(cell: MapCell) {
  return { type: 'Feature', geometry: point(cell), properties: { dataset: cell.dataset } };
}

/** A map cell as the lat/lon endpoints show it. */
export function pointCellFeature(cell: MapCell, datasets: string[], distanceMeters: number) {
  return {
    type: 'Feature',
    geometry: point(cell),
    properties: {
      datasets,
      distance_meters: Math.round(distanceMeters),
      proximity: { ocean: cell.ocean, coastal: cell.coastal },
    },
  };
}

export function regionListItem(r: Region) {
  return {
    id: r.id,
    level1: r.level1,
    level1_description: r.level1_description,
    level2: r.level2,
    level2_description: r.level2_description,
  };
}

/** Region detail as JSON text; the geometry is stored as GeoJSON text and spliced in unparsed. */
export function regionFeatureJson(r: Region): string {
  const props = JSON.stringify({
    level1: r.level1,
    level1_description: r.level1_description,
    level2: r.level2,
    level2_description: r.level2_description,
  });
  return `{"id":${r.id},"type":"Feature","geometry":${r.geometry},"properties":${props}}`;
}
