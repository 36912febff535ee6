import fs from 'node:fs';
import type { CellFileCounts } from '../dataBuild/buildCheck.js';
import { buildFile } from '../dataBuild/files.js';
import type { DatasetYears, ScenarioName } from './buildOptions.js';

/** What a build writes about itself: plan.json while it is written, manifest.json when it is complete. */

export interface Manifest {
  build_id: string;
  created: string;
  seed: number;
  climate_cities: number;
  synthetic: true;
  datasets: Record<string, { cells_with_data: number; models: number }>;
  /** The CMIP5 scenarios' years (NEX-GDDP and LOCA), as before the CMIP6 datasets. */
  years: Record<ScenarioName, [number, number]>;
  /** How many of the most populous cities have CMIP6 data. */
  cmip6_cities: number;
  /**
   * Per dataset, each scenario the build holds for it (one of its selected models has it) and its
   * years: the CMIP6 datasets' historical runs to 2014 and their SSPs start in 2015.
   */
  dataset_years: DatasetYears;
  /** The layout of the build's files (src/dataBuild/buildCheck.ts). */
  format_version: number;
  /** How many files each cell tree holds, written with the manifest (the plan has none). */
  files?: CellFileCounts;
}

/** A cell to build, with what its synthetic climate needs (so that a resumed build reads no sources). */
export interface PlannedCell {
  dataset: string;
  cell_id: number;
  lat: number;
  lon: number;
  /** Distance of the cell centre to the coast in km (0 at sea, at most 800: the same climate from there on). */
  coast_km: number;
}

/** plan.json: the manifest's fields and the cells to build, the most populous cities' first. */
export interface BuildPlan extends Manifest {
  cells: PlannedCell[];
}

/** JSON written beside its target and renamed over it: readers see the old file or the new one. */
export function writeJsonAtomically(file: string, value: unknown) {
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n');
  fs.renameSync(tmp, file);
}

/** What an in-place build already has: its plan, when it is a build of the same options. */
export function readPlan(dir: string, buildId: string): BuildPlan | undefined {
  const file = buildFile.plan(dir);
  if (!fs.existsSync(file)) return undefined;
  const plan = JSON.parse(fs.readFileSync(file, 'utf8')) as BuildPlan;
  return plan.build_id === buildId ? plan : undefined;
}
