import fs from 'node:fs';
import { NotReadyError } from '../errors.js';
import { buildFile } from '../dataBuild/files.js';

interface PlannedCellRef {
  dataset: string;
  cell_id: number;
}

/** What the plan says of each dataset's cells: how many models, and the years of each scenario. */
interface PlanDatasets {
  datasets?: Record<string, { models?: number }>;
  dataset_years?: Record<string, Record<string, [number, number]>>;
}

/**
 * A cell's relative cost per dataset: models x years over its scenarios (a CMIP6 cell, 32 models
 * over 5 scenarios, costs about 2.5 NEX-GDDP cells). 1 for a plan without these (older builds).
 */
function cellWeights(plan: PlanDatasets): Map<string, number> {
  const weights = new Map<string, number>();
  for (const [name, years] of Object.entries(plan.dataset_years ?? {})) {
    const models = plan.datasets?.[name]?.models ?? 0;
    const total = Object.values(years).reduce((n, [y0, y1]) => n + (y1 - y0 + 1), 0);
    if (models > 0 && total > 0) weights.set(name, models * total);
  }
  return weights;
}

/**
 * How far the data build being served is. A build with a manifest is complete. One with only a
 * plan (src/ingest/build.ts, in place) is being written cell by cell, most populous cities first:
 * its catalog is complete, and each cell may be read once its `built/` mark exists, never before,
 * so no answer comes from a half-written cell. The marks are files, so this holds whichever
 * process writes the build; a mark seen once is remembered.
 */
export class BuildProgress {
  private complete_ = false;
  private readonly built = new Set<string>();
  private readonly cells: PlannedCellRef[];
  private readonly weights: Map<string, number>;
  private readonly since = Date.now();
  /** The weight (cellWeights) built when first counted: the pace is measured from there. */
  private builtSince: number | undefined;

  constructor(private readonly dataDir: string) {
    this.complete_ = fs.existsSync(buildFile.manifest(dataDir));
    const plan = this.complete_ ? { cells: [] } : (JSON.parse(fs.readFileSync(buildFile.plan(dataDir), 'utf8')) as PlanDatasets & { cells: PlannedCellRef[] });
    this.cells = plan.cells;
    this.weights = cellWeights(plan);
  }

  private weightOf(c: PlannedCellRef): number {
    return this.weights.get(c.dataset) ?? 1;
  }

  complete(): boolean {
    if (!this.complete_ && fs.existsSync(buildFile.manifest(this.dataDir))) this.complete_ = true;
    return this.complete_;
  }

  cellReady(dataset: string, cellId: number): boolean {
    if (this.complete()) return true;
    const key = `${dataset}:${cellId}`;
    if (this.built.has(key)) return true;
    if (!fs.existsSync(buildFile.builtCell(this.dataDir, dataset, cellId))) return false;
    this.built.add(key);
    return true;
  }

  /** Cells built and planned; both 0 for a complete build. */
  counts(): { built: number; total: number } {
    const ready = this.cells.filter((c) => this.cellReady(c.dataset, c.cell_id));
    this.builtSince ??= ready.reduce((w, c) => w + this.weightOf(c), 0);
    return { built: ready.length, total: this.cells.length };
  }

  /** One sentence on the build for /readyz and the 503s. */
  describe(): string {
    const { built, total } = this.counts();
    return `The default data is still being built: ${built} of ${total} map cells are ready, the most populous cities' first.`;
  }

  /** 503 with Retry-After unless the cell may be read. */
  requireCell(dataset: string, cellId: number): void {
    if (this.cellReady(dataset, cellId)) return;
    const waiting = this.cells.filter((c) => !this.cellReady(c.dataset, c.cell_id));
    const position = waiting.findIndex((c) => c.dataset === dataset && c.cell_id === cellId) + 1;
    const wait = this.secondsUntil(waiting.slice(0, position > 0 ? position : waiting.length));
    throw new NotReadyError('building', `${this.describe()} This map cell's data is not ready yet; it should be in about ${wait} s. Try again then.`, wait);
  }

  /**
   * Seconds until the cells `ahead` (waiting, in build order, the asked one last) are built, from
   * the pace seen so far per weight: a CMIP6 cell takes longer than a CMIP5 one. Before any
   * cell is seen built, 5 s for a cell of average weight.
   */
  private secondsUntil(ahead: PlannedCellRef[]): number {
    this.counts();
    const builtWeight = this.cells.filter((c) => this.cellReady(c.dataset, c.cell_id)).reduce((w, c) => w + this.weightOf(c), 0);
    const seen = builtWeight - (this.builtSince ?? builtWeight);
    const elapsed = (Date.now() - this.since) / 1000;
    const mean = this.cells.reduce((w, c) => w + this.weightOf(c), 0) / Math.max(1, this.cells.length);
    const perWeight = seen > 0 ? elapsed / seen : 5 / mean;
    const weight = ahead.reduce((w, c) => w + this.weightOf(c), 0);
    return Math.min(600, Math.max(1, Math.ceil(weight * perWeight)));
  }
}
