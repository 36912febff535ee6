import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Database } from '../src/db/duckdb.js';
import { macrosSession } from './helpers.js';
import { sortedValues, statistic } from '../src/indicators/acrossModels.js';
import { acrossModelStats, cellStats } from '../src/maps/mapFileValues.js';

/**
 * The service takes the statistics across models in TypeScript; the templates run in a DuckDB CLI
 * session take them with the across_models macro. Both must give the same doubles, to the bit.
 */
let db: Database;
let conn: DuckDBConnection;

beforeAll(async () => {
  ({ db, conn } = await macrosSession(2));
});

afterAll(async () => {
  conn?.closeSync();
  await db?.close();
});

const NAMES = ['min', 'max', 'avg', 'median', 'stddev', 'stdev', '0th', '1st', '5th', '10th', '33th', '90th', '99th', '100th', 'nonsense'];

/** Deterministic pseudo-random lists: magnitudes over many orders, repeats, negatives, one to 40 values. */
function lists(): (number | null)[][] {
  let seed = 12345;
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const out: (number | null)[][] = [[], [0], [7], [-0.5, -0.5], [1e-9, 1e9, 3.3, -2.2]];
  for (let i = 0; i < 300; i++) {
    const n = 1 + Math.floor(next() * 40);
    out.push(Array.from({ length: n }, () => (next() < 0.2 ? Math.round(next() * 10) : (next() - 0.3) * 10 ** Math.floor(next() * 8 - 3))));
  }
  // A model without a value counts as the macro counts it (sorted last).
  out.push([3, null, 1], [null], [null, null, 2.5]);
  return out;
}

describe('statistics across models', () => {
  it('equal the across_models macro to the bit, for every statistic name', async () => {
    const cases = lists();
    const reader = await conn.runAndReadAll(
      `SELECT i, across_models(vals::DOUBLE[], $names::VARCHAR[]) AS stats FROM (SELECT unnest(range(len($lists::DOUBLE[][]))) AS i, unnest($lists::DOUBLE[][]) AS vals) ORDER BY i`,
      { lists: JSON.stringify(cases), names: JSON.stringify(NAMES) } as never,
    );
    const rows = reader.getRowsJS() as [number, { entries?: { key: string; value: number | null }[] }][];
    expect(rows).toHaveLength(cases.length);
    let compared = 0;
    for (const [i, stats] of rows) {
      const sorted = sortedValues(cases[Number(i)]!);
      const entries = Array.isArray(stats) ? (stats as { key: string; value: number | null }[]) : stats.entries!;
      for (const { key, value } of entries) {
        const mine = statistic(key)(sorted);
        expect(Object.is(mine, value) || mine === value, `${key} of ${JSON.stringify(cases[Number(i)])}: ${mine} vs ${value}`).toBe(true);
        compared++;
      }
    }
    expect(compared).toBe(cases.length * NAMES.length);
  });
});

describe("a map cell's statistics (cellStats)", () => {
  it('are those of the sorted values, to the bit: ties, zeros of both signs, NaN and whole numbers among them', () => {
    const aggs = ['min', 'max', 'avg', 'median', '10th', '90th', 'stddev'];
    const stats = acrossModelStats(aggs);
    // A deterministic generator: the same lists every run.
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let t = 0; t < 20_000; t++) {
      const values = Array.from({ length: Math.floor(random() * 40) }, () => {
        const r = random();
        return r < 0.05 ? NaN : r < 0.1 ? 0 : r < 0.15 ? -0 : r < 0.3 ? Math.round(random() * 5) : (random() - 0.5) * 1e3;
      });
      const sorted = sortedValues(values);
      expect(cellStats(values, stats), JSON.stringify(values)).toEqual(aggs.map((name) => statistic(name)(sorted)));
    }
  });
});
