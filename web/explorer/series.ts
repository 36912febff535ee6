import { shownScenarios, STATISTICS } from './state.js';
import type { IndicatorData } from './types.js';

/** One period of the view: its label as the API gives it, its place on the time axis, and the values per scenario and statistic. */
export interface Row {
  period: string;
  x: number;
  /** scenario name -> statistic -> value; missing where the scenario has no such period. */
  values: Record<string, Record<string, number | null>>;
}

/**
 * A period label's position in (fractional) years: '2050' -> 2050.5, '2050-03' -> the middle of
 * March, '2010-2019' and '2021:2050'-style windows -> their middle. Middles, so that yearly,
 * monthly and multi-year periods of the same span line up on one axis.
 */
export function periodX(label: string): number {
  let m = /^(\d{4})$/.exec(label);
  if (m) return Number(m[1]) + 0.5;
  m = /^(\d{4})-(\d{2})$/.exec(label);
  if (m) return Number(m[1]) + (Number(m[2]) - 0.5) / 12;
  m = /^(\d{4})[-:](\d{4})$/.exec(label);
  if (m) return (Number(m[1]) + Number(m[2]) + 1) / 2;
  m = /^(\d{4})-Q(\d)$/.exec(label);
  if (m) return Number(m[1]) + (Number(m[2]) - 0.5) / 4;
  return Number.NaN;
}

/** The answers of the scenarios joined on the period, in time order (ties: the API's order). */
export function joinScenarios(answers: Record<string, IndicatorData>): Row[] {
  const rows = new Map<string, Row>();
  for (const { name } of shownScenarios(Object.keys(answers))) {
    for (const [period, stats] of Object.entries(answers[name] ?? {})) {
      let row = rows.get(period);
      if (!row) {
        row = { period, x: periodX(period), values: {} };
        rows.set(period, row);
      }
      row.values[name] = stats;
    }
  }
  return [...rows.values()].filter((r) => Number.isFinite(r.x)).sort((a, b) => a.x - b.x);
}

/** A value as the table shows it: at most 2 decimals, so that float noise (53.800000000000004) does not show. */
export function formatValue(v: number | null | undefined): string {
  if (v === null || v === undefined) return '';
  return String(Math.round(v * 100) / 100);
}

export const statisticValue = (row: Row, scenario: string, stat: (typeof STATISTICS)[number]): number | null => row.values[scenario]?.[stat] ?? null;
