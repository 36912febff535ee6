import { WARMING_SOURCE } from '../reference/warmingLevels.js';
import type { PeriodStats } from './query.js';
import type { WarmingPlan } from './warmingPlan.js';

/**
 * The members of an answer at warming levels: `warming_levels` (per level, the models used with
 * their windows, and those without one and why) and `data` keyed by level.
 */

/** The answer's `warming_levels` member. */
export function warmingHead(plan: WarmingPlan) {
  const pair = (m: { model: string; scenario: string }) => ({ model: m.model, scenario: m.scenario });
  return {
    pool_scenarios: plan.pooled,
    scenarios: plan.scenarios,
    source: `IPCC AR6 Atlas warming-level tables: ${WARMING_SOURCE.citation}, doi:${WARMING_SOURCE.doi} (${WARMING_SOURCE.licence})`,
    levels: Object.fromEntries(
      plan.levels.map((level) => {
        const misses = plan.misses.filter((m) => m.level === level);
        return [
          level,
          {
            models: plan.members
              .filter((m) => m.level === level)
              .map(({ model, scenario, window: w }) => ({
                model,
                scenario,
                start_year: w.start_year,
                end_year: w.end_year,
                table_member: w.member,
                reference_period: `${w.reference_start}-${w.reference_end}`,
              })),
            not_reached: misses.filter((m) => m.why === 'not_reached').map(pair),
            not_in_table: misses.filter((m) => m.why === 'not_in_table').map(pair),
            outside_data: misses.filter((m) => m.why === 'outside_data').map((m) => ({ ...pair(m), start_year: m.window!.start_year, end_year: m.window!.end_year })),
          },
        ];
      }),
    ),
  };
}

export const warmingHeadJson = (plan: WarmingPlan) => JSON.stringify(warmingHead(plan));

const number = (v: number | null) => (v === null || !Number.isFinite(v) ? 'null' : String(v));
const statsJson = (r: PeriodStats) => `{${[...r.stats.map(([k, v]) => `${JSON.stringify(k)}:${number(v)}`), `"model_count":${r.modelCount}`].join(',')}}`;

/**
 * `data` at warming levels: level -> statistics and model_count (yearly, offset_yearly), or level ->
 * month ("01"), quarter ("Q1") or custom span ("01") of the year -> statistics and model_count.
 */
export function warmingDataJson(rows: PeriodStats[]): string {
  const levels: string[] = [];
  for (const level of [...new Set(rows.map((r) => r.level!))]) {
    const own = rows.filter((r) => r.level === level);
    const value = own.length === 1 && own[0]!.period === '' ? statsJson(own[0]!) : `{${own.map((r) => `${JSON.stringify(r.period)}:${statsJson(r)}`).join(',')}}`;
    levels.push(`${JSON.stringify(level)}:${value}`);
  }
  return `{${levels.join(',')}}`;
}
