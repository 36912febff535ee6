import type { QueryPool } from '../db/queryPool.js';
import { ServiceError } from '../errors.js';
import { planRowsOfCells } from '../indicators/indicatorData.js';
import { planRequest, type IndicatorPlan } from '../indicators/indicatorPlan.js';
import { changedPeriods } from '../indicators/periodChanges.js';
import { fromMonths, MOST_CELLS, queryModelRows, servedStatement, type IndicatorRequest } from '../indicators/query.js';
import { warmingFilesRequest, warmingSeriesOfCells } from '../indicators/warmingData.js';
import { warmingLevelStats } from '../indicators/warmingLevelStats.js';
import type { Catalog } from '../reference/catalog.js';
import { acrossModelStats, cellStats, mapFileAnswers, type CellAnswer } from './mapFileValues.js';

/**
 * Per cell of a map, the statistics across models of the indicator over the map's period, and how
 * many models they are taken over. Each cell is answered by the same steps as the indicator
 * endpoints answer that cell alone (period_models of the template, then changedPeriods or
 * warmingLevelStats, then the statistics across models), only for many cells per statement.
 */
export interface MapValues {
  /** Per statistic (plan.aggs), a value per cell in the cells' order; null where the cell has none. */
  stats: (number | null)[][];
  /** Per cell, the models behind its values (0 where it has none). */
  models: number[];
}



/** One group of cells, in one statement: what the window (and baseline) path answers per cell. */
async function windowGroup(catalog: Catalog, queries: QueryPool, plan: IndicatorPlan, cellIds: number[]): Promise<(CellAnswer | undefined)[]> {
  const stats = acrossModelStats(plan.aggs);
  const answers = await planRowsOfCells(catalog, plan, cellIds, () => undefined as CellAnswer | undefined, async (r) =>
    (await queryModelRows(queries, r)).map((rows): CellAnswer => {
      // One window: one period, or none where no model has a value there.
      const values = changedPeriods(rows, r.timeAggregation, r.windows, r.baseline?.change)[0]?.values ?? [];
      return { values: cellStats(values, stats), models: values.length };
    }),
  );
  // A cell missing the historical file a baseline needs has no value on the map.
  return answers.map((a) => (a instanceof ServiceError ? undefined : a));
}

/** One group of cells at the plan's warming level, in one statement (warmingData.ts). */
async function warmingGroup(catalog: Catalog, queries: QueryPool, plan: IndicatorPlan, cellIds: number[]): Promise<(CellAnswer | undefined)[]> {
  const warming = plan.warming!;
  const series = await warmingSeriesOfCells(catalog, queries, plan, warming, cellIds);
  return series.map((s) => {
    if (s === undefined || s instanceof ServiceError) return undefined;
    const [level] = warmingLevelStats(warming, s, { ...plan, baseline: plan.relativeTo });
    return level ? { values: level.stats.map(([, v]) => v), models: level.modelCount ?? 0 } : undefined;
  });
}

/** The request a cell's values are read with: the plain one, or at warming levels the files' one. */
export function mapRequest(plan: IndicatorPlan): IndicatorRequest {
  return plan.warming ? warmingFilesRequest(plan, plan.warming, []) : planRequest(plan, []);
}

/**
 * The families of sql/indicators/macros.sql that reduce the days themselves even for whole months:
 * a statistic of the days (the humid-heat indicators, whose inputs no summary holds) and a count of
 * days past a threshold the request gives. Every other family reads whole months from the
 * summaries (months, n-day maxima, runs, events over the historic percentiles).
 */
const DAY_FAMILIES = /(?<![\w])(days_per_model|whole_month_count_days_per_model)\(/;

/**
 * Whether the map's values must be computed from the cells' days: the summaries do not hold the
 * request's parameters (another percentile, a base temperature of its own), or the indicator's
 * template reduces the days whatever its parameters.
 */
export function readsDays(plan: IndicatorPlan): boolean {
  const r = mapRequest(plan);
  return !fromMonths(r) || DAY_FAMILIES.test(servedStatement(r.name, 'period_models', true));
}

/**
 * Most cells whose map-file rows are read in one statement. A statement's fixed cost is about 16 ms
 * (it opens and scans its files twice), so a map reads in as few statements as there are cores
 * (QueryPool.groups), and a small one in one: an 11,000-cell window took 817 ms of CPU in groups
 * of 512, 475 in one. A statement streams its rows (a window's values, then one row per cell and
 * model), so its memory does not grow with its cells.
 */
const FILE_GROUP_CELLS = 8192;
const ONE_STATEMENT_CELLS = 512;

/**
 * Every cell's statistics: read from the map files where the build has them for the plan
 * (mapFileValues.ts), the other cells computed in groups in parallel through the pool.
 * `beforeComputing` is told how many cells must be computed from the days, before they are; it
 * throws to refuse the map (MAP_MAX_DAY_CELLS).
 */
export async function mapValues(
  catalog: Catalog,
  queries: QueryPool,
  plan: IndicatorPlan,
  cellIds: number[],
  beforeComputing: (dayCells: number) => void = () => {},
): Promise<MapValues> {
  const answers: (CellAnswer | undefined)[] = cellIds.map(() => undefined);
  const computed: number[] = [];
  // Groups of neighbouring cells (the ids ascend), a statement each, in parallel through the pool.
  const positions = cellIds.map((_, c) => c);
  const fileGroups = cellIds.length <= ONE_STATEMENT_CELLS ? [positions] : queries.groups(positions, FILE_GROUP_CELLS);
  await Promise.all(
    fileGroups.map(async (at) => {
      const fromFiles = await mapFileAnswers(catalog, queries, plan, at.map((c) => cellIds[c]!));
      at.forEach((c, i) => {
        const answer = fromFiles?.[i];
        if (answer) answers[c] = answer;
        else computed.push(c);
      });
    }),
  );
  computed.sort((a, b) => a - b);
  if (computed.length > 0 && readsDays(plan)) beforeComputing(computed.length);
  const group = plan.warming ? warmingGroup : windowGroup;
  const groups = queries.groups(computed, MOST_CELLS);
  const groupAnswers = await Promise.all(groups.map((at) => group(catalog, queries, plan, at.map((c) => cellIds[c]!))));
  groups.forEach((at, g) => at.forEach((c, i) => (answers[c] = groupAnswers[g]![i])));
  const stats = plan.aggs.map((_, k) => answers.map((a) => a?.values[k] ?? null));
  // Infinite values (a percent change from a base of 0 is null already) print as null, as on the indicator endpoints.
  for (const column of stats) for (let i = 0; i < column.length; i++) if (column[i] !== null && !Number.isFinite(column[i]!)) column[i] = null;
  return { stats, models: answers.map((a) => a?.models ?? 0) };
}
