import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Database } from '../src/db/duckdb.js';
import { specificHumidity } from '../src/ingest/syntheticDays.js';
import { macrosSession } from './helpers.js';

/**
 * The humid-heat formulas as the DuckDB macros of sql/indicators/macros.sql compute them, against
 * the published worked numbers (issue 38; ../shared/reference/archive-access.md §6).
 */
let db: Database;
let conn: DuckDBConnection;

beforeAll(async () => {
  ({ db, conn } = await macrosSession(1));
});

afterAll(async () => {
  conn?.closeSync();
  await db?.close();
});

async function value(sql: string): Promise<number | null> {
  const rows = (await conn.runAndReadAll(`SELECT ${sql} AS v`)).getRowObjectsJS();
  return rows[0]!.v as number | null;
}

describe('wet-bulb temperature (Stull 2011)', () => {
  it('gives 13.6993 °C at 20 °C and 50 % (thermofeel: 286.84934190 K)', async () => {
    expect(await value('wet_bulb_stull(20.0, 50.0)')).toBeCloseTo(13.6993, 4);
    expect(await value('daily_wet_bulb(293.15, 50.0)')).toBeCloseTo(286.84934190, 6);
  });

  it('clips the relative humidity to 0..100 % and keeps a missing one missing', async () => {
    expect(await value('daily_wet_bulb(303.15, 104.0)')).toBe(await value('daily_wet_bulb(303.15, 100.0)'));
    expect(await value('daily_wet_bulb(303.15, -2.0)')).toBe(await value('daily_wet_bulb(303.15, 0.0)'));
    expect(await value('daily_wet_bulb(303.15, NULL)')).toBeNull();
  });
});

describe('heat index (US National Weather Service)', () => {
  const cases: [number, number, number, string][] = [
    [90, 50, 94.6, 'Rothfusz'],
    [100, 40, 109.26, 'Rothfusz'],
    [85, 90, 101.78, 'Rothfusz plus the humid adjustment'],
    [100, 10, 94.12, 'Rothfusz less the dry adjustment'],
    [70, 50, 69.05, 'the simple formula'],
  ];
  for (const [t, rh, hi, how] of cases) {
    it(`gives ${hi} °F at ${t} °F and ${rh} % (${how})`, async () => {
      expect(await value(`heat_index_nws(${t}.0, ${rh}.0)`)).toBeCloseTo(hi, 2);
    });
  }

  it('takes the simple formula below an average of 80 °F with the temperature, Rothfusz from it', async () => {
    // At 78 °F and 60 %: simple 78.82, average with 78 = 78.41 < 80, so the simple value.
    expect(await value('heat_index_nws(78.0, 60.0)')).toBeCloseTo(0.5 * (78 + 61 + (78 - 68) * 1.2 + 60 * 0.094), 10);
    // At 82 °F and 60 %: the average is above 80, so the regression.
    const t = 82;
    const rh = 60;
    const rothfusz = -42.379 + 2.04901523 * t + 10.14333127 * rh - 0.22475541 * t * rh - 0.00683783 * t * t - 0.05481717 * rh * rh + 0.00122874 * t * t * rh + 0.00085282 * t * rh * rh - 0.00000199 * t * t * rh * rh;
    expect(await value('heat_index_nws(82.0, 60.0)')).toBeCloseTo(rothfusz, 10);
  });

  it('reads the day in K from tasmax and huss: 90 °F with the huss of 50 % at 90 °F is 94.60 °F', async () => {
    const t = ((90 - 32) / 1.8) + 273.15;
    const q = specificHumidity(t, 50);
    const k = (await value(`daily_heat_index(${t}, ${q})`))!;
    expect(k * 1.8 - 459.67).toBeCloseTo(94.6, 2);
    expect(await value(`daily_heat_index(${t}, NULL)`)).toBeNull();
  });
});

describe('relative humidity from specific humidity', () => {
  it('is 100 e / es with e = q p / (0.622 + 0.378 q) at 1013.25 hPa and Bolton es, capped at 100 %', async () => {
    // 10 g/kg at 30 °C: e = 16.1919 hPa, es = 42.4566 hPa, RH = 38.14 %.
    const e = (0.01 * 1013.25) / (0.622 + 0.378 * 0.01);
    const es = 6.112 * Math.exp((17.67 * 30) / (30 + 243.5));
    expect(await value('relative_humidity_from_huss(0.01, 30.0)')).toBeCloseTo((100 * e) / es, 10);
    expect((100 * e) / es).toBeCloseTo(38.14, 2);
    expect(await value('relative_humidity_from_huss(0.05, 20.0)')).toBe(100);
  });

  it("inverts the generator's specific humidity", async () => {
    for (const [t, rh] of [[300, 40], [280, 90], [310, 15]] as const) {
      expect(await value(`relative_humidity_from_huss(${specificHumidity(t, rh)}, ${t - 273.15})`)).toBeCloseTo(rh, 9);
    }
  });
});
