/** What the ingest tests share: a copy of the suite's build to write into, and the API's view of it. */
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { expect, inject } from 'vitest';
import { openDuckDB, readRows } from '../src/db/duckdb.js';
import type { TestApp } from './helpers.js';
import { expectSameRows } from './support/sameRows.js';

export const NYC = 5128581;
export const THROTTLE = { THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '1000000/day' };
export const quiet = () => {};

/** A fresh copy of the suite's data build, for an ingest to write into. */
export function copyOfTestData(tmpRoot: string, name: string): string {
  const dir = path.join(tmpRoot, name);
  fs.cpSync(inject('dataDir'), dir, { recursive: true });
  return dir;
}

export const get = (t: TestApp, url: string) => request(t.app).get(url).set('Authorization', `Token ${t.token}`);

/** One model's daily values of one year and variable, from the API. */
export async function series(t: TestApp, place: string, scenario: string, model: string, year: number, variable: string, dataset = 'NEX-GDDP') {
  const res = await get(t, `/api/climate-data/${place}/${scenario}/?dataset=${dataset}&models=${model}&years=${year}&variables=${variable}`).expect(200);
  return res.body.data[String(year)][variable] as (number | null)[];
}

/** The centre of the cell holding a city, from the catalog. */
export function cityCell(t: TestApp, city: number, dataset: string) {
  const id = t.catalog.cityCells.get(city)!.get(dataset)!;
  return t.catalog.mapCells.get(dataset, id)!;
}

/** Packed values are integers of 0.01 K (temperatures); floats are compared as float32. */
export function expectClose(got: number | null, want: number, packed: boolean) {
  expect(got).not.toBeNull();
  if (packed) expect(Math.abs(got! - want)).toBeLessThan(0.006);
  else expect(Math.fround(got!)).toBeCloseTo(Math.fround(want), want < 1 ? 12 : 4);
}

/** Each pair of Parquet files holds the same rows (expectSameRows), in a session of its own. */
export async function expectSameFiles(pairs: [string, string][]) {
  const db = await openDuckDB({ threads: 1, memoryLimit: '256MB' });
  const conn = await db.connect();
  try {
    await expectSameRows(conn, pairs);
  } finally {
    conn.closeSync();
    await db.close();
  }
}

export async function partitionRows(file: string) {
  const db = await openDuckDB({ threads: 1, memoryLimit: '256MB' });
  const conn = await db.connect();
  try {
    return await readRows<{ model: string; date: string; tasmax: number | null; tasmin: number | null; pr: number | null }>(
      conn,
      `SELECT model, date::VARCHAR AS date, tasmax, tasmin, pr FROM read_parquet('${file}') ORDER BY model, date`,
    );
  } finally {
    conn.closeSync();
    await db.close();
  }
}
