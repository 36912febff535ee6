import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildFile } from '../dataBuild/files.js';
import { DATASETS, HISTORIC_RANGES, runOf, type DatasetFixture } from '../reference/fixtures.js';
import { BuildError } from './buildError.js';
import { mb } from './buildFolder.js';
import { modelsWith, type BuildOptions, type ResolvedOptions } from './buildOptions.js';
import type { BuildPlan, PlannedCell } from './buildPlan.js';
import { forEachCellOnThreads } from './cellThreads.js';
import { cellClimate, type SyntheticCell } from './synthetic.js';

/** The default build's second stage: each planned cell's synthetic days and their summaries. */

/**
 * Rows of the models' files in the year range, by each model's calendar in the dataset: 365 or 366
 * a year on the standard calendar, 365 on noleap (no Feb 29), 360 on 360_day (its days land on
 * 360 real dates).
 */
export function rowsFor(dataset: DatasetFixture, models: string[], [y0, y1]: [number, number]): number {
  let leap = 0;
  for (let y = y0; y <= y1; y++) if ((y % 4 === 0 && y % 100 !== 0) || y % 400 === 0) leap++;
  const years = y1 - y0 + 1;
  const perCalendar = { standard: 365 * years + leap, noleap: 365 * years, '360_day': 360 * years };
  return models.reduce((n, m) => n + perCalendar[runOf(dataset, m)!.calendar], 0);
}

const millions = (n: number) => `${(n / 1e6).toFixed(2)}M`;

/** Parquet with zstd and byte-stream-split floats takes about 6.4 bytes per daily row. */
const BYTES_PER_ROW = 7;

/**
 * Cells built at once, each on a thread of its own with single-threaded queries: a cell's queries
 * are many and small, and one query per core wastes less than several threads per query. One per
 * core: once V8 stopped recompiling the summaries, a third thread on 2 cores only added switching
 * (default builds, in turn: 131.9 and 135.9 s with 2 threads against 150.0 and 157.9 s with 3;
 * docs/data.md).
 */
const WORKERS = os.availableParallelism();

/**
 * Writes the days and summaries of each cell, WORKERS cells at a time, then marks it built. A
 * cell's files are each written beside their target and renamed; the mark comes last, so a reader
 * that waits for it never sees a half-written cell.
 */
export async function buildCells(
  dir: string,
  plan: BuildPlan,
  todo: PlannedCell[],
  o: ResolvedOptions,
  say: (line: string) => void,
  afterCell: BuildOptions['afterCell'],
) {
  const datasetOf = new Map(DATASETS.map((d) => [d.name, d]));
  // Each (cell, scenario) file holds the selected models that have the scenario, in the dataset's years.
  const scenariosOfCell = (c: PlannedCell) =>
    Object.entries(o.datasetYears[c.dataset]!).map(([scenario, years]) => ({ scenario, years, models: modelsWith(datasetOf.get(c.dataset)!, o.models[c.dataset]!, scenario) }));
  const rowsOf = (c: PlannedCell) => scenariosOfCell(c).reduce((n, s) => n + rowsFor(datasetOf.get(c.dataset)!, s.models, s.years), 0);
  const totalRows = todo.reduce((n, c) => n + rowsOf(c), 0);
  const needed = totalRows * BYTES_PER_ROW;
  const free = (() => {
    try {
      const s = fs.statfsSync(dir);
      return s.bavail * s.bsize;
    } catch {
      return Infinity;
    }
  })();
  if (free < needed) {
    throw new BuildError(
      `Not enough free disk space in ${path.dirname(dir)}: the climate data needs about ${mb(needed)}, ${mb(free)} are free. ` +
        'Free some space, set DATA_DIR to a larger disk, or lower DATA_CITIES.',
    );
  }
  if (todo.length === 0) return;
  const cmip6 = todo.filter((c) => datasetOf.get(c.dataset)!.generation === 'CMIP6').length;
  const yearsOf = (generation: string) => {
    const d = DATASETS.find((x) => x.generation === generation && todo.some((c) => c.dataset === x.name));
    return d ? `${generation} ${Object.entries(o.datasetYears[d.name]!).map(([s, y]) => `${s} ${y.join('-')}`).join(', ')}` : undefined;
  };
  say(
    `climate: ${todo.length} cells (${todo.length - cmip6} CMIP5, then ${cmip6} CMIP6), ${millions(totalRows)} daily rows (about ${mb(needed)}), ` +
      `${WORKERS} at a time, most populous cities first; years ${['CMIP5', 'CMIP6'].map(yearsOf).filter(Boolean).join('; ')}`,
  );
  for (const d of DATASETS) for (const s of Object.keys(o.datasetYears[d.name]!)) fs.mkdirSync(path.join(dir, 'climate', d.name, s), { recursive: true });
  const started = Date.now();
  let rowsDone = 0;
  let built = plan.cells.length - todo.length;
  const startedAt = new Map<PlannedCell, number>();
  const cellOf = (cell: PlannedCell): SyntheticCell => {
    startedAt.set(cell, Date.now());
    return {
      dataDir: dir,
      seed: o.seed,
      dataset: cell.dataset,
      cellId: cell.cell_id,
      climate: cellClimate(cell.lat, cell.lon, cell.coast_km),
      scenarios: scenariosOfCell(cell).map((s) => ({ scenario: s.scenario, years: s.years, models: s.models })),
    };
  };
  await forEachCellOnThreads(todo, WORKERS, cellOf, HISTORIC_RANGES, async (cell, rows) => {
    const t0 = startedAt.get(cell)!;
    const models = o.models[cell.dataset]!;
    const scenarios = scenariosOfCell(cell);
    const marker = buildFile.builtCell(dir, cell.dataset, cell.cell_id);
    fs.mkdirSync(path.dirname(marker), { recursive: true });
    fs.writeFileSync(marker, '');
    built++;
    rowsDone += rows;
    const overall = (Date.now() - started) / 1000;
    say(
      `cell ${built}/${plan.cells.length} ${cell.dataset} ${cell.cell_id} (${cell.lat}, ${cell.lon}): ` +
        `${models.length} models x ${scenarios.length} scenarios, ${millions(rows)} rows in ${((Date.now() - t0) / 1000).toFixed(1)}s; ` +
        `climate ${Math.round((rowsDone / totalRows) * 100)}% of this run, ${millions(rowsDone / overall)} rows/s`,
    );
    await afterCell?.(built, plan.cells.length);
  });
}
