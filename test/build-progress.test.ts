import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BuildProgress } from '../src/climate/buildProgress.js';
import { buildFile } from '../src/dataBuild/files.js';
import { NotReadyError } from '../src/errors.js';

/** The Retry-After of a build in progress: the pace so far, with a CMIP6 cell costing more than a CMIP5 one. */
describe('BuildProgress estimates', () => {
  const dirs: string[] = [];
  afterEach(() => {
    vi.useRealTimers();
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  /** A plan of four cells: two NEX-GDDP (21 models, 246 years), then two NEX-GDDP-CMIP6 (32 models, 409 years). */
  function planned(extra: object = {}): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'build-progress-'));
    dirs.push(dir);
    const cells = [1, 2].map((cell_id) => ({ dataset: 'NEX-GDDP', cell_id })).concat([3, 4].map((cell_id) => ({ dataset: 'NEX-GDDP-CMIP6', cell_id })));
    const plan = {
      cells,
      datasets: { 'NEX-GDDP': { cells_with_data: 2, models: 21 }, 'NEX-GDDP-CMIP6': { cells_with_data: 2, models: 32 } },
      dataset_years: {
        'NEX-GDDP': { historical: [1950, 2005], RCP45: [2006, 2100], RCP85: [2006, 2100] },
        'NEX-GDDP-CMIP6': { historical: [1950, 2014], ssp126: [2015, 2100], ssp245: [2015, 2100], ssp370: [2015, 2100], ssp585: [2015, 2100] },
      },
      ...extra,
    };
    fs.writeFileSync(buildFile.plan(dir), JSON.stringify(plan));
    return dir;
  }
  const mark = (dir: string, dataset: string, cell: number) => {
    fs.mkdirSync(path.dirname(buildFile.builtCell(dir, dataset, cell)), { recursive: true });
    fs.writeFileSync(buildFile.builtCell(dir, dataset, cell), '');
  };
  const retryAfter = (progress: BuildProgress, dataset: string, cell: number): number => {
    try {
      progress.requireCell(dataset, cell);
    } catch (err) {
      expect(err).toBeInstanceOf(NotReadyError);
      return (err as NotReadyError).retryAfterSeconds!;
    }
    throw new Error('the cell was ready');
  };

  it('weighs the cells ahead by their models and years', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const dir = planned();
    const progress = new BuildProgress(dir);
    progress.counts();
    mark(dir, 'NEX-GDDP', 1);
    vi.setSystemTime(1_000_000 + 10_000);
    // One NEX-GDDP cell (21 x 246 model-years) took 10 s.
    const perWeight = 10 / (21 * 246);
    expect(retryAfter(progress, 'NEX-GDDP', 2)).toBe(10);
    expect(retryAfter(progress, 'NEX-GDDP-CMIP6', 3)).toBe(Math.ceil((21 * 246 + 32 * 409) * perWeight));
    expect(retryAfter(progress, 'NEX-GDDP-CMIP6', 4)).toBe(Math.ceil((21 * 246 + 2 * 32 * 409) * perWeight));
  });

  it("counts cells alike for a plan that does not say their datasets' models and years", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const dir = planned({ datasets: undefined, dataset_years: undefined });
    const progress = new BuildProgress(dir);
    progress.counts();
    mark(dir, 'NEX-GDDP', 1);
    vi.setSystemTime(1_000_000 + 10_000);
    expect(retryAfter(progress, 'NEX-GDDP-CMIP6', 4)).toBe(30);
  });
});
