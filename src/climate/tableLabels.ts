import type { Dataset, Scenario } from '../reference/catalog.js';
import type { Location } from './location.js';
import type { Variable } from './params.js';

/** Storage units of the raw variables (the JSON answer documents them in docs/api.md). */
export const VARIABLE_UNITS: Record<Variable, string> = { tasmax: 'K', tasmin: 'K', pr: 'kg m-2 s-1', tas: 'K', hurs: '%', huss: 'kg kg-1' };

/** What a CSV or Arrow table says about where its values come from. */
export interface TableLabels {
  /**
   * The place as an API path under /api/: `city/5128581`, or `map-cell/40.625/-73.875` (the centre
   * of the map cell read) for the lat/lon endpoints. One column, no commas, and it resolves.
   */
  location: string;
  /** The place as the JSON answer shows it (GeoJSON Feature text), for Arrow's schema metadata. */
  feature: string;
  dataset: string;
  scenario: string;
  /** Download name without extension: climate-data_<city id or lat_lon>_<scenario>_<dataset>. */
  fileStem: string;
}

export function tableLabels(location: Location, dataset: Dataset, scenario: Scenario): TableLabels {
  // Parsed only for CSV and Arrow answers; the feature is a few hundred bytes.
  const feature = JSON.parse(location.featureJson) as { id?: number; geometry: { coordinates: [number, number] } };
  let path: string;
  let place: string;
  if (location.key === 'city') {
    path = `city/${feature.id}`;
    place = String(feature.id);
  } else {
    const [lon, lat] = feature.geometry.coordinates;
    path = `map-cell/${lat}/${lon}`;
    place = `${lat}_${lon}`;
  }
  const stem = ['climate-data', place, scenario.name, dataset.name].join('_');
  return { location: path, feature: location.featureJson, dataset: dataset.name, scenario: scenario.name, fileStem: safeFileName(stem) };
}

/** Keeps a Content-Disposition file name to letters, digits, `.`, `_` and `-`. */
export const safeFileName = (name: string) => name.replace(/[^A-Za-z0-9._-]/g, '-');
