import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { openDuckDB } from '../src/db/duckdb.js';
import { writeAllSummaries } from '../src/ingest/summaries.js';
import { testApp, type TestApp } from './helpers.js';
import { expectSameRows } from './support/sameRows.js';

const NYC = 5128581;
const THROTTLE = { THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '1000000/day' };
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-summaries-'));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

const get = (t: TestApp, url: string) => request(t.app).get(url).set('Authorization', `Token ${t.token}`);
const PATHS = [`/api/climate-data/${NYC}/RCP85/?years=2050:2052`, `/api/climate-data/${NYC}/RCP85/indicator/dry_spells/?time_aggregation=monthly`];

describe('make summaries: a build made by an older service', () => {
  it('answers 503 naming the command while a summary is missing, and the same as a fresh build after it ran', async () => {
    const dir = path.join(tmpRoot, 'build');
    fs.cpSync(inject('dataDir'), dir, { recursive: true });
    const fresh = await testApp(THROTTLE, dir);
    const want = await Promise.all(PATHS.map(async (p) => (await get(fresh, p).expect(200)).text));

    // An older build: no ensemble_json tree, and a monthly summary gone.
    const monthlyBefore = path.join(tmpRoot, 'monthly-of-the-build');
    fs.cpSync(path.join(dir, 'monthly'), monthlyBefore, { recursive: true });
    fs.rmSync(path.join(dir, 'ensemble_json'), { recursive: true });
    fs.rmSync(path.join(dir, 'monthly'), { recursive: true });
    for (const p of PATHS) {
      const res = await get(fresh, p).expect(503);
      expect(res.body.detail).toMatch(/make summaries/);
    }

    const db = await openDuckDB({ threads: 2, memoryLimit: '512MB' });
    const seen: number[] = [];
    const written = await writeAllSummaries(db, dir, 2, (done, total) => seen.push(done / total));
    // The same monthly summaries as the build wrote, the heat series of each dataset's historic
    // ranges included (1981-2010 in the CMIP6 datasets only): compared row by row.
    const conn = await db.connect();
    const files = (fs.readdirSync(monthlyBefore, { recursive: true }) as string[]).filter((f) => f.endsWith('.parquet'));
    expect(files.some((f) => f.startsWith('NEX-GDDP-CMIP6'))).toBe(true);
    await expectSameRows(conn, files.map((f) => [path.join(monthlyBefore, f), path.join(dir, 'monthly', f)]));
    conn.closeSync();
    await db.close();
    const partitions = fs.readdirSync(path.join(dir, 'climate')).flatMap((ds) =>
      fs.readdirSync(path.join(dir, 'climate', ds)).flatMap((sc) => fs.readdirSync(path.join(dir, 'climate', ds, sc)).filter((f) => f.endsWith('.parquet'))),
    );
    expect(written).toBe(partitions.length);
    expect(seen.at(-1)).toBe(1);
    for (const tree of ['monthly', 'ensemble', 'ensemble_json']) {
      expect(fs.readdirSync(path.join(dir, tree)).length, tree).toBeGreaterThan(0);
    }
    const got = await Promise.all(PATHS.map(async (p) => (await get(fresh, p).expect(200)).text));
    expect(got).toEqual(want);
  }, 300_000);

  it('answers 503 naming the command for monthly summaries of the older format (a heat MAP), and the fresh answers after it ran', async () => {
    const dir = path.join(tmpRoot, 'map-build');
    fs.cpSync(inject('dataDir'), dir, { recursive: true });
    const paths = [
      `/api/climate-data/${NYC}/RCP85/indicator/heat_wave_incidents/?time_aggregation=monthly`,
      `/api/climate-data/${NYC}/RCP85/indicator/heat_wave_duration_index/?time_aggregation=quarterly`,
      `/api/climate-data/${NYC}/RCP85/indicator/frost_days/`,
    ];
    const fresh = await testApp(THROTTLE, dir);
    const want = await Promise.all(paths.map(async (p) => (await get(fresh, p).expect(200)).text));
    for (const text of want) expect(Object.keys(JSON.parse(text).data).length).toBeGreaterThan(2);

    // What the service wrote before the heat columns: one MAP from range start to run summary.
    const db = await openDuckDB({ threads: 2, memoryLimit: '512MB' });
    const conn = await db.connect();
    const files = (fs.readdirSync(path.join(dir, 'monthly'), { recursive: true }) as string[]).filter((f) => f.endsWith('.parquet')).map((f) => path.join(dir, 'monthly', f));
    for (const file of files) {
      await conn.run(
        `COPY (SELECT COLUMNS(c -> NOT starts_with(c, 'heat_')), NULL::MAP(INTEGER, STRUCT(n BIGINT, head BIGINT, tail BIGINT, longest BIGINT, runs5 BIGINT)) AS heat
               FROM read_parquet('${file}')) TO '${file}.old' (FORMAT parquet)`,
      );
      fs.renameSync(`${file}.old`, file);
    }
    const old = await testApp(THROTTLE, dir);
    expect([...old.catalog.staleSummaries].sort()).toEqual(["LOCA", "LOCA2", "NEX-GDDP", "NEX-GDDP-CMIP6"]);
    for (const p of paths) {
      const res = await get(old, p).expect(503);
      expect(res.body.detail).toMatch(/NEX-GDDP monthly summaries of an older format.*make summaries/);
    }
    // A batch gives each place that error, and the raw data still answer (their summaries did not change).
    const batch = await request(old.app).post('/api/climate-data/batch/RCP85/indicator/frost_days/').set('Authorization', `Token ${old.token}`).send({ locations: [{ city: NYC }] });
    expect(JSON.stringify(batch.body)).toMatch(/make summaries/);
    await get(old, PATHS[0]!).expect(200);

    await writeAllSummaries(db, dir, 2, () => {});
    conn.closeSync();
    await db.close();
    const rewritten = await testApp(THROTTLE, dir);
    expect(rewritten.catalog.staleSummaries.size).toBe(0);
    expect(await Promise.all(paths.map(async (p) => (await get(rewritten, p).expect(200)).text))).toEqual(want);
  }, 300_000);
});
