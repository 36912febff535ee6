import { DATASETS } from '../../reference/fixtures.js';
import { GRIDS } from '../../reference/grids.js';
import type { ExtractContext } from './extract.js';

/** What the map step needs to read a file of the plan. */
export function extractContext(plan: { dataset: string; models: string[]; cells: Int32Array; rangeCells: number }, blockBytes?: number): ExtractContext {
  const grid = GRIDS[plan.dataset]!;
  const fixture = DATASETS.find((d) => d.name === plan.dataset)!;
  return {
    dataset: plan.dataset,
    grid,
    models: plan.models,
    // The dataset's own years: CMIP6's historical runs to 2014, CMIP5's to 2005.
    scenarioYears: new Map(Object.entries(fixture.years)),
    generation: fixture.generation,
    runs: fixture.runs,
    cells: plan.cells,
    rangeCells: plan.rangeCells,
    ...(blockBytes ? { blockBytes } : {}),
  };
}

