import fs from 'node:fs';
import path from 'node:path';
import type { Variable } from '../../src/ingest/netcdf/cfValues.js';
import { modelLacks } from '../../src/reference/datasetVariables.js';
import { DATASETS } from '../../src/reference/fixtures.js';
import { GRIDS } from '../../src/reference/grids.js';
import { fixtureFileName, writeFixture, type FixtureSpec } from './fixtureFiles.js';

/**
 * A scale model of the publishers' archives: files named, shaped and stored as theirs are, with
 * deterministic values, for tests and benchmarks of the ingest.
 * - NEX-GDDP-CMIP6: one file per (variable, model, scenario, year), global 0.25 degree grid of
 *   1440 x 600 (60 S to 90 N, longitudes 0-360), one day per chunk, shuffled and deflated; in
 *   NASA's folders <model>/<scenario>/<member>/<variable>/.
 * - LOCA2: one file per (variable, model, scenario, period), periods 1950-2014, 2015-2044,
 *   2045-2074 and 2075-2100, 1/16 degree over North America (the service's LOCA2 grid); in
 *   Scripps's folders <model>/0p0625deg/<member>/<scenario>/<variable>/.
 * Each model's member, grid label and calendar are the catalogue's (src/reference/fixtures.ts).
 * Cells over the sea hold the fill value. A box instead of the whole grid keeps files small.
 */
export type ArchiveDataset = 'NEX-GDDP-CMIP6' | 'LOCA2';

export interface ArchiveRequest {
  dataset: ArchiveDataset;
  /** Model directories of the dataset. */
  models: string[];
  scenarios: string[];
  /** First and last year wanted; LOCA2 files hold whole periods, so they may cover more. */
  years: [number, number];
  variables: Variable[];
  /** west, south, east, north (degrees): the cells whose centres lie inside; default the publisher's whole grid. */
  bbox?: [number, number, number, number];
  /** Chunk shape (time, lat, lon); default one day of the whole grid. */
  chunks?: [number, number, number];
  /** Relative noise on each value (default 0.01): real output compresses about 2:1, smooth values 100:1. */
  noise?: number;
}

export interface ArchiveFile {
  /** Path below the archive's root. */
  path: string;
  spec: FixtureSpec;
}

const LOCA2_PERIODS: [number, number][] = [[1950, 2014], [2015, 2044], [2045, 2074], [2075, 2100]];
const CALENDARS = { standard: 'standard', noleap: '365_day', '360_day': '360_day' } as const;

/** The grid the publisher's files cover: cell centres from south to north and west to east. */
function publisherGrid(dataset: ArchiveDataset) {
  if (dataset === 'NEX-GDDP-CMIP6') return { size: 0.25, lat: [-59.875, 89.875] as [number, number], lon: [0.125, 359.875] as [number, number] };
  const g = GRIDS.LOCA2!;
  const half = g.size / 2;
  return { size: g.size, lat: [g.lat0 + half, g.lat0 + g.rows * g.size - half] as [number, number], lon: [g.lon0 + half, g.lon0 + g.cols * g.size - half] as [number, number] };
}

/** The cell centres of an axis [from, to] (step `size`) that lie in [lo, hi]. */
function clip(axis: [number, number], size: number, lo: number, hi: number): [number, number] | undefined {
  const first = axis[0] + Math.max(0, Math.ceil((lo - axis[0]) / size - 1e-9)) * size;
  const last = axis[0] + Math.floor((Math.min(hi, axis[1]) - axis[0]) / size + 1e-9) * size;
  return first <= last && first <= axis[1] ? [first, last] : undefined;
}

/** The files of a request, in a stable order. Throws naming the request field at fault. */
export function planArchive(req: ArchiveRequest): ArchiveFile[] {
  const dataset = DATASETS.find((d) => d.name === req.dataset);
  if (!dataset) throw new Error(`DATASET must be NEX-GDDP-CMIP6 or LOCA2; got '${req.dataset}'`);
  const grid = publisherGrid(req.dataset);
  let lat = grid.lat;
  let lon = grid.lon;
  let lon360 = false;
  if (req.bbox) {
    const [w, s, e, n] = req.bbox;
    if (!(w < e && s < n)) throw new Error(`BBOX is west,south,east,north with west < east and south < north; got ${req.bbox.join(',')}`);
    const latCut = clip(grid.lat, grid.size, s, n);
    // In -180..180: NEX-GDDP-CMIP6's 0..360 axis as the same centres.
    const lonAxis: [number, number] = req.dataset === 'NEX-GDDP-CMIP6' ? [-179.875, 179.875] : grid.lon;
    const lonCut = clip(lonAxis, grid.size, w, e);
    if (!latCut || !lonCut) throw new Error(`BBOX ${req.bbox.join(',')} holds no ${req.dataset} cell centre (its files span lat ${grid.lat.join('..')}, lon ${grid.lon.join('..')})`);
    lat = latCut;
    lon = lonCut;
    // Written 0..360 as the publishers do, unless the box spans the prime meridian (its axis would not increase).
    lon360 = lon[1] < 0 || lon[0] >= 0;
  } else if (req.dataset === 'LOCA2') {
    lon360 = true;
  }
  const out: ArchiveFile[] = [];
  for (const model of req.models) {
    const run = dataset.runs.find((r) => r.model === model);
    if (!run) throw new Error(`MODELS: '${model}' is not a ${req.dataset} model; its models: ${dataset.models.join(', ')}`);
    for (const scenario of req.scenarios) {
      const span = dataset.years[scenario];
      if (!span) throw new Error(`SCENARIOS: '${scenario}' is not a ${req.dataset} scenario; its scenarios: ${Object.keys(dataset.years).join(', ')}`);
      if (!run.scenarios.includes(scenario)) continue; // the publisher has no such run
      const y0 = Math.max(req.years[0], span[0]);
      const y1 = Math.min(req.years[1], span[1]);
      const files: [number, number][] =
        req.dataset === 'LOCA2'
          ? LOCA2_PERIODS.filter(([a, b]) => a <= y1 && b >= y0 && a >= span[0] && b <= span[1])
          : Array.from({ length: Math.max(0, y1 - y0 + 1) }, (_, k) => [y0 + k, y0 + k]);
      for (const [first, last] of files) {
        // As the publisher does: no file of a variable it never made for the model.
        for (const variable of req.variables.filter((v) => modelLacks(req.dataset, model, [v]).length === 0)) {
          const spec: FixtureSpec = {
            layout: req.dataset,
            variable,
            // NASA names GFDL-CM4's second grid by its label only: GFDL-CM4_gr2 is GFDL-CM4 on gr2.
            model: model.replace(/_gr\d$/, ''),
            scenario: scenario as FixtureSpec['scenario'],
            year: first,
            ...(req.dataset === 'LOCA2' ? { endYear: last } : {}),
            member: run.member ?? 'r1i1p1f1',
            ...(req.dataset === 'NEX-GDDP-CMIP6' ? { gridLabel: run.gridLabel ?? 'gn' } : {}),
            calendar: CALENDARS[run.calendar],
            lat,
            lon,
            lon360,
            shuffle: true,
            landOnly: true,
            noise: req.noise ?? 0.01,
            ...(req.chunks ? { chunks: req.chunks } : {}),
          };
          const folder =
            req.dataset === 'NEX-GDDP-CMIP6'
              ? path.join('NEX-GDDP-CMIP6', model, scenario, spec.member!, variable)
              : path.join('LOCA2', model, '0p0625deg', spec.member!, scenario, variable);
          out.push({ path: path.join(folder, fixtureFileName(spec)), spec });
        }
      }
    }
  }
  return out;
}

/**
 * Writes the planned files under `root`; files already there are kept (each is written under a
 * temporary name and renamed, so one in place is whole). Returns the files written and kept.
 */
export async function writeArchive(root: string, files: ArchiveFile[], log: (line: string) => void = () => {}): Promise<{ written: string[]; kept: string[] }> {
  const written: string[] = [];
  const kept: string[] = [];
  for (const [n, f] of files.entries()) {
    const target = path.join(root, f.path);
    if (fs.existsSync(target)) {
      kept.push(target);
      continue;
    }
    const started = Date.now();
    await writeFixture(path.dirname(target), f.spec);
    written.push(target);
    log(`${n + 1}/${files.length} ${f.path}: ${(fs.statSync(target).size / 1e6).toFixed(1)} MB in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return { written, kept };
}
