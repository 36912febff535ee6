import fs from 'node:fs';
import { HttpError } from '../http/errors.js';
import { buildFile } from './files.js';

interface PlannedCellRef {
  dataset: string;
  cell_id: number;
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
  private readonly since = Date.now();
  private builtSince: number | undefined;

  constructor(private readonly dataDir: string) {
    this.complete_ = fs.existsSync(buildFile.manifest(dataDir));
    this.cells = this.complete_ ? [] : (JSON.parse(fs.readFileSync(buildFile.plan(dataDir), 'utf8')) as { cells: PlannedCellRef[] }).cells;
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
    const built = this.cells.filter((c) => this.cellReady(c.dataset, c.cell_id)).length;
    this.builtSince ??= built;
    return { built, total: this.cells.length };
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
    const wait = this.secondsUntil(position > 0 ? position : waiting.length);
    throw new HttpError(
      503,
      `${this.describe()} This map cell's data is not ready yet; it should be in about ${wait} s. Try again then.`,
      undefined,
      { 'Retry-After': String(wait) },
    );
  }

  /** Seconds until the `position`-th cell still waiting is built, from the pace seen so far. */
  private secondsUntil(position: number): number {
    const { built } = this.counts();
    const seen = built - (this.builtSince ?? built);
    const elapsed = (Date.now() - this.since) / 1000;
    const perCell = seen > 0 ? elapsed / seen : 5;
    return Math.min(600, Math.max(1, Math.ceil(position * perCell)));
  }
}
