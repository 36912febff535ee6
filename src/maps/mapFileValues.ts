import type { DuckDBMaterializedResult } from '@duckdb/node-api';
import { listValue } from '@duckdb/node-api';
import type { QueryPool } from '../db/queryPool.js';
import { sqlFile } from '../db/sqlFiles.js';
import { dataScenario, type IndicatorPlan } from '../indicators/indicatorPlan.js';
import type { ModelRows } from '../indicators/periodChanges.js';
import type { RowsByScenario } from '../indicators/warmingData.js';
import type { Catalog } from '../reference/catalog.js';
import { existingMapFile } from './mapFiles.js';

/**
 * A map's per-model yearly values read from the map files (mapFiles.ts) instead of computed from
 * the cells' summaries or days: what period_models answers for a cell's yearly values, as the
 * files were written by that statement. A map reads them when its plan is an indicator's default
 * one (the files' key), over a span of years (a window, with or without a baseline) or at a
 * warming level, and the build has a file for every scenario the plan reads.
 */

/** Each file the plan reads: its scenario and its years. */
interface FileRead {
  scenario: string;
  file: string;
  years: number[];
}

/** The files a map's plan reads its values from; undefined when it must compute them (mapValues.ts). */
function fileReads(catalog: Catalog, plan: IndicatorPlan): FileRead[] | undefined {
  // A build whose summaries are of an older format answers with their error (planCellFiles).
  if (plan.returnLevels || dataScenario(plan) !== plan.scenario || catalog.staleSummaries.has(plan.dataset.name)) return undefined;
  const wanted: { scenario: string; years: number[] }[] = plan.warming
    ? plan.warming.files.map((scenario) => ({ scenario, years: plan.warming!.years }))
    : [{ scenario: plan.scenario.name, years: plan.years }, ...(plan.relativeTo ? [{ scenario: 'historical', years: plan.baselineYears }] : [])];
  if (!plan.warming && plan.windows?.length !== 1) return undefined;
  const reads: FileRead[] = [];
  for (const { scenario, years } of wanted) {
    const file = existingMapFile(catalog.dataDir, plan.dataset.name, scenario, plan.meta.name, plan.units, plan.vars);
    if (!file) return undefined;
    reads.push({ scenario, file, years });
  }
  return reads;
}

/** The models whose rows are read: those the computed answer reads (warmingFilesRequest at warming levels, where none is every model). */
function modelsRead(plan: IndicatorPlan): string[] {
  return plan.warming ? (plan.warming.models ?? plan.dataset.models) : plan.models;
}

type TypedItems = { items: Int32Array | Float64Array };

/** One file's rows of the cells, per cell (undefined where the file has none of its rows). */
async function readFile(queries: QueryPool, read: FileRead, models: string[], cellIds: number[], negate: boolean): Promise<(ModelRows | undefined)[]> {
  const at = new Map(cellIds.map((id, i) => [id, i]));
  const out: (ModelRows | undefined)[] = cellIds.map(() => undefined);
  if (models.length === 0 || read.years.length === 0 || cellIds.length === 0) return out;
  const result: DuckDBMaterializedResult = await queries.run((conn) =>
    conn.run(sqlFile('maps/map_file_values.sql'), {
      file: read.file,
      models: listValue(models),
      ids: listValue(cellIds),
      lo: Math.min(...cellIds),
      hi: Math.max(...cellIds),
      years: listValue(read.years),
    } as never),
  );
  // Per cell, each model's slot in its ModelRows (-1 until the model has a row there).
  const slots = cellIds.map(() => new Int32Array(models.length).fill(-1));
  const sign = negate ? -1 : 1;
  for (let k = 0; k < result.chunkCount; k++) {
    const chunk = result.getChunk(k);
    const [cell, model, year, value] = [0, 1, 2, 3].map((c) => (chunk.getColumnVector(c) as unknown as TypedItems).items);
    for (let r = 0; r < chunk.rowCount; r++) {
      const c = at.get(cell![r]!)!;
      const m = model![r]!;
      let rows = out[c];
      if (!rows) out[c] = rows = { models: [], ids: [], vals: [] };
      let slot = slots[c]![m]!;
      if (slot < 0) {
        slot = slots[c]![m] = rows.models.length;
        rows.models.push(models[m]!);
        rows.ids.push([]);
        rows.vals.push([]);
      }
      rows.ids[slot]!.push(sign * year![r]!);
      const v = value![r]!;
      rows.vals[slot]!.push(Number.isNaN(v) ? null : v);
    }
  }
  return out;
}

/** A's rows then B's, as one set (the answers key each model's rows by its name). */
function joined(a: ModelRows, b: ModelRows): ModelRows {
  return { models: [...a.models, ...b.models], ids: [...a.ids, ...b.ids], vals: [...a.vals, ...b.vals] };
}

/**
 * Per cell, its rows as the map's answer takes them (mapValues.ts): over a span of years its
 * scenario's rows with the baseline's years (negated ids, as period_models has them) from the
 * historical file; at warming levels each file's rows by scenario. undefined for a cell that is
 * missing from one of the files (its values are then computed, which answers its own way: no
 * value, or the 404 of a missing historical file); undefined as a whole when the plan is not read
 * from files.
 */
export async function mapFileRows(catalog: Catalog, queries: QueryPool, plan: IndicatorPlan, cellIds: number[]): Promise<(ModelRows | RowsByScenario | undefined)[] | undefined> {
  const reads = fileReads(catalog, plan);
  if (!reads) return undefined;
  const models = modelsRead(plan);
  const perFile = await Promise.all(reads.map((read, f) => readFile(queries, read, models, cellIds, !plan.warming && f > 0)));
  return cellIds.map((_, c) => {
    if (perFile.some((rows) => rows[c] === undefined)) return undefined;
    if (plan.warming) return new Map(reads.map((read, f) => [read.scenario, perFile[f]![c]!]));
    return perFile.slice(1).reduce((all, rows) => joined(all, rows[c]!), perFile[0]![c]!);
  });
}
