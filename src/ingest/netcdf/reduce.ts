import fs from 'node:fs';
import { Database } from '../../db/duckdb.js';
import path from 'node:path';
import {
  DATE, DuckDBDataChunk, FLOAT, INTEGER, LIST, listValue, USMALLINT, UTINYINT, VARCHAR,
  type DuckDBAppender, type DuckDBConnection,
} from '@duckdb/node-api';
import { CELL_PARQUET, cellPath } from '../../dataBuild/files.js';
import { sqlFile, sqlString } from '../../db/sqlFiles.js';
import { forEachOnConnections } from '../../db/workers.js';
import { loadSummaryMacros, writeSummaries, type CellRef, type SummaryRange } from '../summaries.js';
import type { Variable } from './cfValues.js';
import { mergeModelDays, type Contribution } from './cellRows.js';
import { hasHumidity } from '../../reference/datasetVariables.js';
import type { StagedFile } from './stagedFile.js';

/** Ingested days with tasmin above tasmax, for one tasmin file (reported, not dropped). */
export interface InvertedDays {
  model: string;
  scenario: string;
  tasmin_file: string;
  tasmax_file: string;
  /** (cell, date) pairs. */
  cell_days: number;
  dates: number;
  first_date: string;
  /** Largest tasmin - tasmax, K. */
  max_excess: number;
}

export interface ReduceContext {
  dataDir: string;
  dataset: string;
  /** The dataset's models (catalog order): fresh rows name them by index. */
  models: string[];
  /** The dataset's scenarios, historical first. */
  scenarios: string[];
  ranges: SummaryRange[];
}

/**
 * The staged parts of one range of cells (cellRanges.ts), one per file in the ingest's file order:
 * where two cover a value, the later wins.
 */
export type RangeParts = StagedFile[];

export interface BatchResult {
  /** Partitions with rows after the batch. */
  partitions: number;
  /** Of those, the ones whose file changed (a partition rebuilt to the same bytes is left in place). */
  changed: number;
  /** Cells of the batch whose partitions hold rows. */
  withData: number[];
  summaries: number;
  /** Wall seconds of each step: reading the staged values and merging them into rows for DuckDB, writing the partitions, the summaries. */
  seconds: { rows: number; partitions: number; summaries: number };
}

export interface RangeResult extends BatchResult {
  /** Cells of the range with a value in some part, and the batches they were reduced in. */
  cells: number;
  batches: number;
  /** Parts read and their bytes read (each part whole, once). */
  parts: number;
  bytesRead: number;
}

/** Rows per batch of cells in work.fresh: a few hundred MB of DuckDB memory at most. */
const BATCH_ROWS = 4_000_000;
const MAX_BATCH_CELLS = 512;
const VECTOR = 2048;
const FRESH_TYPES = [INTEGER, UTINYINT, USMALLINT, DATE, FLOAT, FLOAT, FLOAT, FLOAT, FLOAT, FLOAT, UTINYINT];

/** Appends fresh rows a DuckDB vector (2,048 rows) at a time, from typed arrays: no value is boxed. */
class FreshAppender {
  private n = 0;
  private readonly cols = {
    cell: new Int32Array(VECTOR), scenario: new Uint8Array(VECTOR), model: new Uint16Array(VECTOR), date: new Int32Array(VECTOR),
    tasmax: new Float32Array(VECTOR), tasmin: new Float32Array(VECTOR), pr: new Float32Array(VECTOR),
    tas: new Float32Array(VECTOR), hurs: new Float32Array(VECTOR), huss: new Float32Array(VECTOR), covered: new Uint8Array(VECTOR),
  };
  rows = 0;
  constructor(private readonly appender: DuckDBAppender) {}

  /** One row: `values` per variable (cellRows.ts's VARIABLE_INDEX), read at slot `s`. */
  add(cell: number, scenario: number, model: number, date: number, values: Float32Array[], s: number, covered: number) {
    const c = this.cols;
    const k = this.n++;
    c.cell[k] = cell;
    c.scenario[k] = scenario;
    c.model[k] = model;
    c.date[k] = date;
    c.tasmax[k] = values[0]![s]!;
    c.tasmin[k] = values[1]![s]!;
    c.pr[k] = values[2]![s]!;
    c.tas[k] = values[3]![s]!;
    c.hurs[k] = values[4]![s]!;
    c.huss[k] = values[5]![s]!;
    c.covered[k] = covered;
    if (this.n === VECTOR) this.flush();
  }

  flush() {
    if (this.n === 0) return;
    const chunk = DuckDBDataChunk.create(FRESH_TYPES, this.n);
    Object.values(this.cols).forEach((values, k) => {
      const vector = chunk.getColumnVector(k) as unknown as { items: { set(a: ArrayLike<number>): void }; flush(): void };
      vector.items.set(values.subarray(0, this.n));
      vector.flush();
    });
    this.appender.appendDataChunk(chunk);
    this.rows += this.n;
    this.n = 0;
  }

  close() {
    this.flush();
    this.appender.flushSync();
    this.appender.closeSync();
  }
}

/**
 * The reduce step of the ingest: for a batch of cells of a range, merges the values of those cells
 * in every file's part of the range per (scenario, model) (cellRows.ts), hands them to DuckDB as typed vectors, rewrites each
 * touched partition once from its previous rows and the fresh ones, then the cells' summaries.
 * The same cells reduced twice from the same staged files write the same files.
 */
export class Reducer {
  private readonly modelIndex: Map<string, number>;
  private readonly days = new WeakMap<StagedFile, Int32Array>();
  private readonly inverted = new Map<string, { x: Omit<InvertedDays, 'dates' | 'first_date'>; dates: Set<number>; first: number }>();

  private constructor(
    private readonly ctx: ReduceContext,
    private readonly db: Database,
  ) {
    this.modelIndex = new Map(ctx.models.map((m, k) => [m, k]));
  }

  private daysOf(s: StagedFile): Int32Array {
    let days = this.days.get(s);
    if (!days) this.days.set(s, (days = Int32Array.from(s.meta.days)));
    return days;
  }

  static async open(ctx: ReduceContext): Promise<Reducer> {
    const db = await Database.open(':memory:', { threads: '2', memory_limit: '1GB' });
    const conn = await db.connect();
    try {
      // Once, before any connection writes summaries: concurrent CREATE MACRO conflict.
      await loadSummaryMacros(conn);
    } finally {
      conn.closeSync();
    }
    return new Reducer(ctx, db);
  }

  /** Consecutive cells in batches whose fresh rows stay under BATCH_ROWS. */
  batches(cells: Int32Array, staged: RangeParts): number[][] {
    // Rows of a cell at most: per (scenario, model), the dates from its files' first to their last.
    const spans = new Map<string, [number, number]>();
    for (const s of staged) {
      const days = s.meta.days;
      if (days.length === 0) continue;
      const key = `${s.meta.scenario}\t${s.meta.model}`;
      const had = spans.get(key);
      spans.set(key, had ? [Math.min(had[0], days[0]!), Math.max(had[1], days[days.length - 1]!)] : [days[0]!, days[days.length - 1]!]);
    }
    const perCell = Math.max(1, [...spans.values()].reduce((n, [a, b]) => n + b - a + 1, 0));
    const size = Math.max(1, Math.min(MAX_BATCH_CELLS, Math.floor(BATCH_ROWS / perCell)));
    const out: number[][] = [];
    for (let k = 0; k < cells.length; k += size) out.push(Array.from(cells.subarray(k, k + size)));
    return out;
  }

  /**
   * Reduces every cell with data of one range, a batch at a time (the parts read once: each batch
   * reads its cells' values); `onBatch` hears of each batch done.
   */
  async reduceRange(staged: RangeParts, onBatch: (r: BatchResult, done: number, of: number) => void = () => {}): Promise<RangeResult> {
    const cells = cellsWithData(staged);
    const batches = this.batches(cells, staged);
    const out: RangeResult = {
      partitions: 0, changed: 0, withData: [], summaries: 0, seconds: { rows: 0, partitions: 0, summaries: 0 },
      cells: cells.length, batches: batches.length, parts: staged.length, bytesRead: 0,
    };
    let done = 0;
    for (const batch of batches) {
      const r = await this.reduceBatch(batch, staged);
      done += batch.length;
      out.partitions += r.partitions;
      out.changed += r.changed;
      out.summaries += r.summaries;
      out.withData.push(...r.withData);
      for (const k of Object.keys(out.seconds) as (keyof BatchResult['seconds'])[]) out.seconds[k] += r.seconds[k];
      onBatch(r, done, cells.length);
    }
    out.bytesRead = staged.reduce((n, s) => n + s.bytesRead, 0);
    return out;
  }

  async reduceBatch(cells: number[], staged: RangeParts): Promise<BatchResult> {
    const { ctx } = this;
    const lo = cells[0]!;
    const hi = cells[cells.length - 1]!;
    const slices = staged.flatMap((s, order) => {
      const k0 = s.indexOf(lo);
      const k1 = s.indexOf(hi + 1);
      return k0 < k1 ? [{ s, order, k0, k1, values: s.readCells(k0, k1) }] : [];
    });
    const conn = await this.db.connect();
    const touched: { cell: number; scenario: number }[] = [];
    const t0 = performance.now();
    try {
      await conn.run(sqlFile('ingest/fresh_days.sql'));
      const rows = new FreshAppender(await conn.createAppender('fresh', 'main', 'work'));
      for (const cell of cells) {
        const groups = new Map<number, Contribution[]>();
        for (const sl of slices) {
          const k = sl.s.indexOf(cell);
          if (k >= sl.k1 || sl.s.cells[k] !== cell || !sl.s.hasData[k]) continue;
          const meta = sl.s.meta;
          const nt = meta.days.length;
          const scenario = ctx.scenarios.indexOf(meta.scenario);
          const model = this.modelIndex.get(meta.model);
          if (scenario < 0 || model === undefined) throw new Error(`${meta.source.path}: ${meta.model} ${meta.scenario} is not in ${ctx.dataset}'s catalog`);
          const key = scenario * 65536 + model;
          let list = groups.get(key);
          if (!list) groups.set(key, (list = []));
          list.push({ order: sl.order, file: meta.source.path, variable: meta.variable as Variable, days: this.daysOf(sl.s), values: sl.values.subarray((k - sl.k0) * nt, (k - sl.k0 + 1) * nt) });
        }
        const scenarios = new Set<number>();
        for (const [key, list] of [...groups].sort((a, b) => a[0] - b[0])) {
          const scenario = Math.floor(key / 65536);
          const model = key % 65536;
          const md = mergeModelDays(list);
          if (!md) continue;
          scenarios.add(scenario);
          const [tx, tn] = md.values as [Float32Array, Float32Array];
          for (let s = 0; s < md.covered.length; s++) {
            if (md.covered[s] === 0) continue;
            rows.add(cell, scenario, model, md.first + s, md.values, s, md.covered[s]!);
            if (tn[s]! > tx[s]!) this.noteInverted(list, ctx.models[model]!, ctx.scenarios[scenario]!, md.sources[1]![s]!, md.sources[0]![s]!, md.first + s, tn[s]! - tx[s]!);
          }
        }
        for (const scenario of scenarios) touched.push({ cell, scenario });
      }
      rows.close();
      const t1 = performance.now();

      const withData = new Set<number>();
      const changed: { cell: number; scenario: number }[] = [];
      let partitions = 0;
      // Two at a time: each is a small query and a small file, dominated by fixed costs.
      await forEachOnConnections(touched, 2, () => this.db.connect(), async (c, p) => {
        const file = cellPath(ctx.dataDir, 'climate', ctx.dataset, ctx.scenarios[p.scenario]!, p.cell);
        const r = await this.rebuild(c, file, p.cell, p.scenario);
        if (r.rows > 0) {
          withData.add(p.cell);
          partitions++;
        }
        if (r.changed) changed.push(p);
      });

      const t2 = performance.now();
      // The summaries the service reads beside the days (src/ingest/summaries.ts): for every changed
      // partition, and for every scenario of a cell whose historical days changed (their heat-wave
      // summaries use its climatology); historical first.
      const refs: CellRef[][] = [];
      for (const cell of cells) {
        const mine = changed.filter((t) => t.cell === cell).map((t) => ctx.scenarios[t.scenario]!);
        if (mine.length === 0) continue;
        const scenarios = mine.includes('historical') ? ctx.scenarios : mine;
        const ordered = [...scenarios].sort((a, b) => (a === 'historical' ? -1 : b === 'historical' ? 1 : 0));
        const group = ordered
          .filter((scenario) => fs.existsSync(cellPath(ctx.dataDir, 'climate', ctx.dataset, scenario, cell)))
          .map((scenario) => ({ dataDir: ctx.dataDir, dataset: ctx.dataset, scenario, cellId: cell }));
        if (group.length > 0) refs.push(group);
      }
      const summaries = await writeSummaries(refs, ctx.ranges, 2, () => this.db.connect(), () => {});
      const t3 = performance.now();
      return { partitions, changed: changed.length, withData: [...withData], summaries, seconds: { rows: (t1 - t0) / 1000, partitions: (t2 - t1) / 1000, summaries: (t3 - t2) / 1000 } };
    } finally {
      conn.closeSync();
    }
  }

  private noteInverted(list: Contribution[], model: string, scenario: string, minOrder: number, maxOrder: number, day: number, excess: number) {
    const tasmin = list.find((c) => c.order === minOrder)!.file;
    const tasmax = list.find((c) => c.order === maxOrder)!.file;
    const key = `${model}\t${scenario}\t${tasmin}\t${tasmax}`;
    let acc = this.inverted.get(key);
    if (!acc) {
      acc = { x: { model, scenario, tasmin_file: tasmin, tasmax_file: tasmax, cell_days: 0, max_excess: 0 }, dates: new Set(), first: day };
      this.inverted.set(key, acc);
    }
    acc.x.cell_days++;
    acc.x.max_excess = Math.max(acc.x.max_excess, excess);
    acc.dates.add(day);
    acc.first = Math.min(acc.first, day);
  }

  /** Where ingested tasmin is above ingested tasmax, over every batch reduced so far. */
  invertedDays(): InvertedDays[] {
    const iso = (day: number) => new Date(day * 86400000).toISOString().slice(0, 10);
    return [...this.inverted.values()]
      .map((a) => ({ ...a.x, dates: a.dates.size, first_date: iso(a.first) }))
      .sort((a, b) => (a.model + a.scenario + a.tasmin_file < b.model + b.scenario + b.tasmin_file ? -1 : 1));
  }

  /**
   * Rebuilds one partition file from its previous content and the fresh rows: written to a
   * temporary file next to it and renamed over it, so a reader (or a kill) sees the old file or the
   * new one, never a partial one; left in place when the new bytes are the same. Returns the rows
   * (0: no file) and whether the file changed.
   */
  private async rebuild(conn: DuckDBConnection, file: string, cell: number, scenario: number): Promise<{ rows: number; changed: boolean }> {
    const hadPrevious = fs.existsSync(file);
    // {{previous}} takes one of two fixed texts; values are bound parameters.
    const previous = hadPrevious
      ? 'read_parquet($previous)'
      : '(SELECT NULL::VARCHAR AS model, NULL::DATE AS date, NULL::FLOAT AS tasmax, NULL::FLOAT AS tasmin, NULL::FLOAT AS pr WHERE false)';
    const merged = sqlFile('ingest/merge_partition.sql').replace('{{previous}}', previous);
    // The columns the default build writes for the dataset (src/ingest/synthetic.ts): tas, hurs and huss only
    // where its files carry them, so that a LOCA2 partition stays as the build wrote it.
    const select = hasHumidity(this.ctx.dataset) ? merged : `SELECT model, date, tasmax, tasmin, pr FROM (${merged}) ORDER BY model, date`;
    const tmp = `${file}.tmp-${process.pid}`;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const params: Record<string, unknown> = { scenario, cell, models: listValue(this.ctx.models) };
    if (hadPrevious) params.previous = file;
    try {
      // COPY takes no parameter for its target; the path is the ingest's own.
      const result = await conn.run(`COPY (${select}) TO ${sqlString(tmp)} (${CELL_PARQUET})`, params as never, { models: LIST(VARCHAR) } as never);
      const rows = Number(result.rowsChanged);
      if ((rows === 0 && !hadPrevious) || (hadPrevious && sameBytes(tmp, file))) {
        fs.rmSync(tmp, { force: true });
        return { rows: hadPrevious ? rows : 0, changed: false };
      }
      fs.renameSync(tmp, file);
      return { rows, changed: true };
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw err;
    }
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

/** Every cell with a value in some part, ascending. */
export function cellsWithData(staged: RangeParts): Int32Array {
  const seen = new Set<number>();
  for (const s of staged) for (let k = 0; k < s.cells.length; k++) if (s.hasData[k]) seen.add(s.cells[k]!);
  return Int32Array.from(seen).sort();
}

/** Whether two (small) files hold the same bytes. */
function sameBytes(a: string, b: string): boolean {
  const sa = fs.statSync(a);
  const sb = fs.statSync(b);
  return sa.size === sb.size && fs.readFileSync(a).equals(fs.readFileSync(b));
}

