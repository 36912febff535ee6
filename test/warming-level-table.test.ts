import path from 'node:path';
import request from 'supertest';
import { beforeAll, describe, expect, it, inject } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { DATASETS } from '../src/reference/fixtures.js';
import { testApp, type TestApp } from './helpers.js';
import { tableRows } from './support/warmingTable.js';

/**
 * The warming-level table of the catalog and GET /api/warming-level/, against the published CSV
 * files read here on their own: every window of the catalog is a row of the table the rules pick
 * (the model's own name, GFDL-CM4's for GFDL-CM4_gr2; CMIP5 1850-1900 unless the model is only in
 * the 1861-1900 table), and every such row is in the catalog.
 */

let t: TestApp;
const get = (url: string) => request(t.app).get(url).set('Authorization', `Token ${t.token}`);

beforeAll(async () => {
  t = await testApp();
});

describe('the catalog warming-level table', () => {
  it('holds, per dataset, model and served scenario, exactly the rows of the table its rules pick', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    const file = path.join(inject('dataDir'), 'catalog', 'warming_level.parquet');
    const rows = (await conn.runAndReadAll(`SELECT * FROM read_parquet('${file}') ORDER BY ALL`)).getRowObjectsJS() as Record<string, unknown>[];
    conn.closeSync();
    db.closeSync();
    let expected = 0;
    for (const d of DATASETS) {
      for (const scenario of Object.keys(d.years).filter((s) => s !== 'historical')) {
        for (const model of d.runs.filter((r) => r.scenarios.includes(scenario)).map((r) => r.model)) {
          const want = tableRows(d.name, model, scenario)
            .map((r) => ({ member: r.member, level: r.level, start: r.start, end: r.end, reference: r.reference }))
            .sort((a, b) => a.level - b.level);
          const got = rows
            .filter((r) => r.dataset === d.name && r.model === model && r.scenario === scenario)
            .map((r) => ({ member: r.member, level: r.warming_level as number, start: r.start_year, end: r.end_year, reference: `${r.reference_start}-${r.reference_end}` }))
            .sort((a, b) => a.level - b.level);
          expect(got, `${d.name} ${model} ${scenario}`).toEqual(want);
          expected += want.length;
        }
      }
    }
    expect(rows).toHaveLength(expected);
    // The cases the rules are for.
    const window = (dataset: string, model: string, scenario: string, level: number) => rows.find((r) => r.dataset === dataset && r.model === model && r.scenario === scenario && r.warming_level === level);
    expect(window('NEX-GDDP-CMIP6', 'GFDL-CM4_gr2', 'ssp585', 2)).toMatchObject({ table_model: 'GFDL-CM4', start_year: 2032, end_year: 2051 });
    expect(window('NEX-GDDP', 'GFDL-CM3', 'RCP85', 2)).toMatchObject({ table_model: 'GFDL-CM3', reference_start: 1861, start_year: 2025, end_year: 2044 });
    expect(window('NEX-GDDP', 'ACCESS1-0', 'RCP85', 2)).toMatchObject({ reference_start: 1850, start_year: 2031, end_year: 2050 });
    expect(rows.some((r) => r.model === 'MIROC-ESM' || r.model === 'CESM2-LENS')).toBe(false);
  });
});

describe('GET /api/warming-level/', () => {
  it('lists the levels, the reference period, the source and its licence', async () => {
    const res = await get('/api/warming-level/').expect(200);
    expect(res.body.levels).toEqual(['1.0', '1.5', '2.0', '3.0', '4.0']);
    expect(res.body.window_years).toBe(20);
    expect(res.body.reference_period).toEqual({ start_year: 1850, end_year: 1900 });
    expect(res.body.source).toMatchObject({ doi: '10.5281/zenodo.3591807', licence: 'CC BY-SA 4.0' });
  });

  it('counts per dataset and scenario the models that reach each level, and names those not in the table', async () => {
    const res = await get('/api/warming-level/').expect(200);
    expect(res.body.datasets.map((d: { name: string }) => d.name)).toEqual(DATASETS.map((d) => d.name));
    for (const d of DATASETS) {
      const listed = res.body.datasets.find((x: { name: string }) => x.name === d.name);
      const scenarios = Object.keys(d.years).filter((s) => s !== 'historical');
      expect(listed.scenarios.map((s: { name: string }) => s.name)).toEqual(scenarios);
      for (const s of listed.scenarios as { name: string; models: number; reaching: Record<string, number>; reaching_in_data: Record<string, number>; not_in_table: string[] }[]) {
        const models = d.runs.filter((r) => r.scenarios.includes(s.name)).map((r) => r.model);
        expect(s.models).toBe(models.length);
        for (const level of ['1.0', '1.5', '2.0', '3.0', '4.0']) {
          expect(s.reaching[level], `${d.name} ${s.name} ${level}`).toBe(models.filter((m) => tableRows(d.name, m, s.name).some((r) => r.level === Number(level))).length);
        }
        expect(s.not_in_table).toEqual(models.filter((m) => tableRows(d.name, m, s.name).length === 0));
        // The suite's shared build has three years per scenario: no window is in it.
        expect(Object.values(s.reaching_in_data)).toEqual([0, 0, 0, 0, 0]);
      }
    }
    const nex = res.body.datasets.find((x: { name: string }) => x.name === 'NEX-GDDP');
    // What the shared README counted: RCP8.5 2.0 °C 16 models of the 1850-1900 table, plus the three of the 1861-1900 one.
    expect(nex.scenarios.find((s: { name: string }) => s.name === 'RCP85').reaching['2.0']).toBe(19);
    expect(nex.scenarios.find((s: { name: string }) => s.name === 'RCP85').not_in_table).toEqual(['MIROC-ESM-CHEM', 'MIROC-ESM']);
    expect(nex.other_reference_period).toEqual(['GFDL-CM3', 'GFDL-ESM2G', 'GFDL-ESM2M'].map((model) => ({ model, start_year: 1861, end_year: 1900 })));
    const cmip6 = res.body.datasets.find((x: { name: string }) => x.name === 'NEX-GDDP-CMIP6');
    expect(cmip6.scenarios.find((s: { name: string }) => s.name === 'ssp585').reaching['2.0']).toBe(32);
  });

  it('is documented, and the datasets say which member the table used', async () => {
    const doc = (await request(t.app).get('/openapi.json').expect(200)).body;
    expect(doc.paths['/api/warming-level/'].get.operationId).toBe('listWarmingLevels');
    const nex6 = (await get('/api/dataset/NEX-GDDP-CMIP6/').expect(200)).body.description;
    expect(nex6).toContain('FGOALS-g3 (table: r1i1p1f1; served: r3i1p1f1)');
    expect(nex6).toContain("GFDL-CM4_gr2 takes GFDL-CM4's windows");
    expect((await get('/api/dataset/NEX-GDDP/').expect(200)).body.description).toContain('GFDL-CM3, GFDL-ESM2G and GFDL-ESM2M against 1861-1900');
    expect((await get('/api/dataset/LOCA2/').expect(200)).body.description).toContain('Not in the tables, so at no warming level: CESM2-LENS');
  });
});
