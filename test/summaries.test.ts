import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { openDuckDB } from '../src/db/duckdb.js';
import { writeAllSummaries } from '../src/ingest/summaries.js';
import { testApp, type TestApp } from './helpers.js';

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
    for (const f of files) {
      const [a, b] = [path.join(monthlyBefore, f), path.join(dir, 'monthly', f)];
      const r = await conn.runAndReadAll(
        `SELECT (SELECT count(*) FROM (FROM read_parquet($a) EXCEPT ALL FROM read_parquet($b))) + (SELECT count(*) FROM (FROM read_parquet($b) EXCEPT ALL FROM read_parquet($a))) AS diff`,
        { a, b },
      );
      expect(Number(r.getRows()[0]![0]), f).toBe(0);
    }
    conn.closeSync();
    db.closeSync();
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
  });
});
