import { listValue } from '@duckdb/node-api';
import type { QueryPool } from '../db/queryPool.js';
import { sqlFile } from '../db/sqlFiles.js';
import { statistic, type AcrossModelStat } from '../indicators/acrossModels.js';
import { dataScenario, type IndicatorPlan } from '../indicators/indicatorPlan.js';
import { changeOf } from '../indicators/periodChanges.js';
import type { Catalog } from '../reference/catalog.js';
import { holdsCell, mapFileCells } from './mapFileCells.js';
import { existingMapFile } from './mapFiles.js';

/**
 * A map's answers from the map files (mapFiles.ts) instead of computed from the cells' summaries
 * or days. A map reads them when its plan is an indicator's default one (the files' key), over a
 * span of years (a window, with or without a baseline) or at a warming level, and the build has a
 * file for every scenario the plan reads. DuckDB takes each model's mean over its years
 * (sql/maps/map_file_values.sql, meanOf's operations); then, as changedPeriods and
 * warmingLevelStats do, each model's change against its base and the statistics across models.
 * The rows stay in DuckDB: only a few numbers per cell and model reach the heap.
 */

/** A cell's statistics (in plan.aggs' order) and the number of models behind them. */
export interface CellAnswer {
  values: (number | null)[];
  models: number;
}

/** Whether a comes after b in sortedValues' order of numbers: ascending, NaN last. */
const after = (a: number, b: number) => a > b || (Number.isNaN(a) && !Number.isNaN(b));

/**
 * The statistics of one cell's models' values (statsOf in query.ts, for one period), `stats` the
 * plan's (acrossModelStats, once per map). The values are numbers: an insertion sort, stable as
 * sortedValues' is, puts a few dozen of them in its order without its allocations (they were 40 ms
 * of an 11,000-cell map, and most of its garbage).
 */
export function cellStats(values: number[], stats: AcrossModelStat[]): (number | null)[] {
  const sorted = values.slice();
  for (let i = 1; i < sorted.length; i++) {
    const v = sorted[i]!;
    let j = i - 1;
    for (; j >= 0 && after(sorted[j]!, v); j--) sorted[j + 1] = sorted[j]!;
    sorted[j + 1] = v;
  }
  return stats.map((stat) => stat(sorted));
}

/** The plan's statistics across models, as cellStats takes them. */
export const acrossModelStats = (aggs: string[]): AcrossModelStat[] => aggs.map(statistic);

/** A span of years of one model in some files, whose mean is one number of the answer. */
interface Span {
  files: string[];
  model: string;
  start: number;
  end: number;
}

/** What a plan reads from the files: its spans, and how a cell's means (by span) make its values. */
interface FileRead {
  files: string[];
  spans: Span[];
  values: (mean: (span: number) => number | null) => number[];
}

/** A value, or with a baseline its change against its base (changeOf, as the endpoints take it). */
function changed(value: number | null, base: number | null, change: 'absolute' | 'percent' | undefined): number | null {
  return change === undefined ? value : changeOf(value, base, change);
}

/** The files a map's plan reads its values from and how; undefined when it must compute them (mapValues.ts). */
function fileRead(catalog: Catalog, plan: IndicatorPlan): FileRead | undefined {
  // A build whose summaries are of an older format answers with their error (planCellFiles).
  if (plan.returnLevels || dataScenario(plan) !== plan.scenario || catalog.staleSummaries.has(plan.dataset.name)) return undefined;
  const fileOf = (scenario: string) => existingMapFile(catalog.dataDir, plan.dataset.name, scenario, plan.meta.name, plan.units, plan.vars);
  const change = plan.relativeTo?.change;
  if (plan.warming) {
    const warming = plan.warming;
    const files = new Map(warming.files.map((s) => [s, fileOf(s)]));
    if ([...files.values()].some((f) => f === undefined)) return undefined;
    const historical = files.get('historical');
    const spans: Span[] = [];
    // Per member its window's years, in its scenario's file and (before the scenario) the historical one.
    const memberSpans = warming.members.map((m) => ({
      model: m.model,
      span: spans.push({ files: [files.get(m.scenario)!, ...(historical ? [historical] : [])], model: m.model, start: m.window.start_year, end: m.window.end_year }) - 1,
    }));
    const baseSpan = new Map<string, number>();
    if (plan.relativeTo) {
      if (!historical) return undefined;
      for (const model of new Set(warming.members.map((m) => m.model))) baseSpan.set(model, spans.push({ files: [historical], model, start: plan.relativeTo.start_year, end: plan.relativeTo.end_year }) - 1);
    }
    return {
      files: [...files.values()] as string[],
      spans,
      values: (mean) => {
        const out: number[] = [];
        for (const { model, span } of memberSpans) {
          const v = changed(mean(span), plan.relativeTo ? mean(baseSpan.get(model)!) : null, change);
          if (v !== null) out.push(v);
        }
        return out;
      },
    };
  }
  if (plan.windows?.length !== 1) return undefined;
  const file = fileOf(plan.scenario.name);
  const baseFile = plan.relativeTo ? fileOf('historical') : undefined;
  if (!file || (plan.relativeTo && !baseFile)) return undefined;
  const [w] = plan.windows;
  const spans: Span[] = plan.models.map((model) => ({ files: [file], model, start: w!.s, end: w!.e }));
  if (baseFile) for (const model of plan.models) spans.push({ files: [baseFile], model, start: Math.min(...plan.baselineYears), end: Math.max(...plan.baselineYears) });
  const m = plan.models.length;
  return {
    files: baseFile ? [file, baseFile] : [file],
    spans,
    values: (mean) => {
      const out: number[] = [];
      for (let i = 0; i < m; i++) {
        const v = changed(mean(i), baseFile ? mean(m + i) : null, change);
        if (v !== null) out.push(v);
      }
      return out;
    },
  };
}

type TypedItems = { items: Int32Array | Float64Array };

/**
 * Per cell, its answer from the map files; undefined for a cell missing from one of the files (its
 * values are then computed, which answers its own way: no value, or the 404 of a missing historical
 * file); undefined as a whole when the plan is not read from files.
 */
export async function mapFileAnswers(catalog: Catalog, queries: QueryPool, plan: IndicatorPlan, cellIds: number[]): Promise<(CellAnswer | undefined)[] | undefined> {
  const read = fileRead(catalog, plan);
  if (!read) return undefined;
  const at = new Map(cellIds.map((id, i) => [id, i]));
  const stats = acrossModelStats(plan.aggs);
  const nSpans = read.spans.length;
  if (cellIds.length === 0 || nSpans === 0) return cellIds.map(() => undefined);
  const reads = read.spans.flatMap((s, k) => s.files.map((file) => ({ k, file, ...s })));
  const heldBy = await Promise.all(read.files.map((file) => mapFileCells(queries, file)));
  const result = await queries.run((conn) =>
    conn.run(sqlFile('maps/map_file_values.sql'), {
      files: listValue(read.files),
      // Spans of two files (a warming level's window across the historical years) have their pieces grouped.
      joined: read.spans.some((s) => s.files.length > 1),
      read_file: listValue(reads.map((r) => r.file)),
      read_model: listValue(reads.map((r) => r.model)),
      read_span: listValue(reads.map((r) => r.k)),
      read_start: listValue(reads.map((r) => r.start)),
      read_end: listValue(reads.map((r) => r.end)),
      // As text: a list value of 11,000 ids took 10 ms to bind.
      ids: cellIds.join(','),
      lo: Math.min(...cellIds),
      hi: Math.max(...cellIds),
    } as never),
  );
  // Per cell, each span's mean (NaN where it has none).
  const means = new Float64Array(cellIds.length * nSpans).fill(NaN);
  for (let k = 0; k < result.chunkCount; k++) {
    const chunk = result.getChunk(k);
    // A total is null only where n is 0.
    const [cell, span, total, n] = [0, 1, 2, 3].map((c) => (chunk.getColumnVector(c) as unknown as TypedItems).items);
    const rows = chunk.rowCount;
    for (let r = 0; r < rows; r++) if (n![r]! > 0) means[at.get(cell![r]!)! * nSpans + span![r]!] = total![r]! / n![r]!;
  }
  return cellIds.map((id, c) => {
    if (heldBy.some((cells) => !holdsCell(cells, id))) return undefined;
    const values = read.values((s) => {
      const v = means[c * nSpans + s]!;
      return Number.isNaN(v) ? null : v;
    });
    return { values: cellStats(values, stats), models: values.length };
  });
}
