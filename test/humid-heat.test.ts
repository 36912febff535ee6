import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { climateFile } from '../src/dataBuild/files.js';
import { testApp, type TestApp } from './helpers.js';
import { heatIndexK, perYear, rhFromHuss, toF, wetBulbK, type Days } from './support/humidFormulas.js';

/**
 * Humid heat (issue 38): NEX-GDDP-CMIP6's tas, hurs and huss on the raw endpoints and in
 * /api/dataset/, and the four indicators on them, each against the formulas computed here from the
 * raw days the API serves. The suite's shared build has New York City's NEX-GDDP-CMIP6 cell with
 * ACCESS-CM2, CanESM5 and UKESM1-0-LL (every one with humidity); the warming build has 1961-2014.
 */
const NYC = 5128581;
const CMIP6 = 'dataset=NEX-GDDP-CMIP6';
let t: TestApp;
let long: TestApp;
const get = (url: string, app = t) => request(app.app).get(url).set('Authorization', `Token ${app.token}`);

beforeAll(async () => {
  const rates = { THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' };
  t = await testApp(rates);
  long = await testApp(rates, inject('warmingDataDir'));
});

/** One model's raw days (the average of one model is its value). */
async function days(model: string, scenario: string, years: string, variables: string, app = t): Promise<Days> {
  const res = await get(`/api/climate-data/${NYC}/${scenario}/?${CMIP6}&models=${model}&years=${years}&variables=${variables}`, app).expect(200);
  return res.body.data;
}
/** An answer in Arrow, read. */
async function arrowTable(url: string, app = t) {
  const res = await get(url, app)
    .set('Accept', 'application/vnd.apache.arrow.stream')
    .buffer(true)
    .parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    })
    .expect(200);
  return tableFromIPC(res.body as Buffer);
}
const MODELS = ['ACCESS-CM2', 'CanESM5', 'UKESM1-0-LL'];
const stats = (xs: number[]) => ({ min: Math.min(...xs), max: Math.max(...xs), avg: xs.reduce((a, b) => a + b, 0) / xs.length });

describe('the humidity variables', () => {
  it('are listed per dataset, with the models each lacks', async () => {
    const nex6 = (await get('/api/dataset/NEX-GDDP-CMIP6/').expect(200)).body;
    expect(nex6.variables).toEqual(['tasmax', 'tasmin', 'pr', 'tas', 'hurs', 'huss']);
    expect(nex6.models_lacking).toEqual({ hurs: ['BCC-CSM2-MR', 'NESM3'], huss: ['IPSL-CM6A-LR', 'MIROC6', 'NESM3'] });
    for (const name of ['NEX-GDDP', 'LOCA', 'LOCA2']) {
      const d = (await get(`/api/dataset/${name}/`).expect(200)).body;
      expect(d.variables).toEqual(['tasmax', 'tasmin', 'pr']);
      expect(d.models_lacking).toEqual({});
    }
  });

  it('hang together in the synthetic build: tasmin <= tas <= tasmax, 0 <= hurs <= 100, huss the humidity hurs gives at tas', async () => {
    for (const model of MODELS) {
      const data = await days(model, 'ssp585', '2050:2052', 'tasmax,tasmin,tas,hurs,huss');
      let n = 0;
      for (const v of Object.values(data)) {
        for (let s = 0; s < 366; s++) {
          if (v.tas![s] === null) continue;
          n++;
          expect(v.tasmin![s]!).toBeLessThanOrEqual(v.tas![s]!);
          expect(v.tas![s]!).toBeLessThanOrEqual(v.tasmax![s]!);
          expect(v.hurs![s]!).toBeGreaterThanOrEqual(0);
          expect(v.hurs![s]!).toBeLessThanOrEqual(100);
          // hurs is stored to 0.01 %, huss from the unrounded value
          expect(Math.abs(rhFromHuss(v.huss![s]!, v.tas![s]!) - v.hurs![s]!)).toBeLessThan(0.01);
        }
      }
      expect(n).toBeGreaterThan(3 * 359);
    }
  });

  it('are served by every-model requests too, and in CSV', async () => {
    const res = await get(`/api/climate-data/${NYC}/ssp245/?${CMIP6}&years=2050&variables=hurs,tas`).expect(200);
    expect(res.body.variables).toEqual(['tas', 'hurs']);
    // every model of the dataset with the scenario (this build has files of three) but those without hurs
    expect(res.body.climate_models).toEqual(expect.arrayContaining([...MODELS, 'MIROC6']));
    expect(res.body.climate_models).not.toContain('NESM3');
    expect(res.body.models_left_out).toEqual([{ model: 'BCC-CSM2-MR', lacks: ['hurs'] }, { model: 'NESM3', lacks: ['hurs'] }]);
    const one = await Promise.all(MODELS.map((m) => days(m, 'ssp245', '2050', 'hurs')));
    const avg = (s: number) => one.reduce((a, d) => a + d['2050']!.hurs![s]!, 0) / 3;
    expect(res.body.data['2050'].hurs[180]).toBeCloseTo(avg(180), 3);
    const csv = await get(`/api/climate-data/${NYC}/ssp245/?${CMIP6}&years=2050&variables=huss&format=csv`).expect(200);
    const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
    expect(rows.length).toBe(365);
    expect(Object.values(rows[0]!)).toContain('kg kg-1');
  });

  it('answer 400 on a dataset without them, naming the variable', async () => {
    const res = await get(`/api/climate-data/${NYC}/RCP85/?variables=tasmax,hurs`).expect(400);
    expect(res.body.detail).toContain('Dataset NEX-GDDP has no hurs');
    const loca2 = await get(`/api/climate-data/${NYC}/ssp245/?dataset=LOCA2&variables=huss`).expect(400);
    expect(loca2.body.detail).toContain('Dataset LOCA2 has no huss');
    expect(loca2.body.detail).toContain('huss is in NEX-GDDP-CMIP6.');
    expect((await get(`/api/climate-data/${NYC}/ssp245/?${CMIP6}&variables=rh`).expect(400)).body.detail).toContain('variables accepts');
  });

  it('leave out models without them and say which; only such models is a 400 naming them', async () => {
    const res = await get(`/api/climate-data/${NYC}/ssp245/?${CMIP6}&models=ACCESS-CM2,NESM3,MIROC6&years=2050&variables=tas,huss`).expect(200);
    expect(res.body.climate_models).toEqual(['ACCESS-CM2']);
    expect(res.body.models_left_out).toEqual([{ model: 'NESM3', lacks: ['huss'] }, { model: 'MIROC6', lacks: ['huss'] }]);
    const only = await get(`/api/climate-data/${NYC}/ssp245/?${CMIP6}&models=NESM3,BCC-CSM2-MR&variables=hurs`).expect(400);
    expect(only.body.detail).toContain('NESM3 has no hurs');
    expect(only.body.detail).toContain('BCC-CSM2-MR has no hurs');
    // tasmax alone needs nothing they lack
    await get(`/api/climate-data/${NYC}/ssp245/?${CMIP6}&models=NESM3&years=2050&variables=tasmax`).expect(200);
  });
});

describe('the humid-heat indicators', () => {
  it('max_wet_bulb_temperature is the yearly maximum of Stull from each model\'s tas and hurs', async () => {
    const perModel = await Promise.all(MODELS.map(async (m) => perYear(await days(m, 'ssp585', '2050:2052', 'tas,hurs'), ['tas', 'hurs'], wetBulbK)));
    for (const units of ['F', 'C', 'K']) {
      const res = await get(`/api/climate-data/${NYC}/ssp585/indicator/max_wet_bulb_temperature/?${CMIP6}&years=2050:2052&units=${units}&agg=min,max,avg`).expect(200);
      expect(res.body.units).toBe(units);
      expect(res.body.indicator.variables).toEqual(['tas', 'hurs']);
      expect(res.body.indicator.formula).toContain('0.151977');
      expect(res.body.indicator.source).toContain('Stull');
      for (const year of ['2050', '2051', '2052']) {
        const k = perModel.map((p) => Math.max(...p.get(year)!));
        const conv = (x: number) => (units === 'F' ? toF(x) : units === 'C' ? x - 273.15 : x);
        const want = stats(k.map(conv));
        expect(res.body.data[year].min).toBeCloseTo(want.min, 6);
        expect(res.body.data[year].max).toBeCloseTo(want.max, 6);
        expect(res.body.data[year].avg).toBeCloseTo(want.avg, 6);
      }
    }
  });

  it('wet_bulb_temperature_threshold counts the days past the threshold, monthly too', async () => {
    const perModel = await Promise.all(MODELS.map(async (m) => perYear(await days(m, 'ssp585', '2051', 'tas,hurs'), ['tas', 'hurs'], wetBulbK)));
    const res = await get(`/api/climate-data/${NYC}/ssp585/indicator/wet_bulb_temperature_threshold/?${CMIP6}&years=2051&threshold=20&threshold_units=C&threshold_comparator=gte&agg=min,max`).expect(200);
    const counts = perModel.map((p) => p.get('2051')!.filter((x) => x >= 293.15).length);
    expect(counts.some((c) => c > 0)).toBe(true);
    expect(res.body.data['2051']).toEqual({ min: Math.min(...counts), max: Math.max(...counts) });
    const monthly = await get(`/api/climate-data/${NYC}/ssp585/indicator/wet_bulb_temperature_threshold/?${CMIP6}&years=2051&threshold=68&threshold_units=F&threshold_comparator=gte&agg=max&time_aggregation=monthly`).expect(200);
    expect(Object.keys(monthly.body.data)).toHaveLength(12);
    expect(Object.values(monthly.body.data as Record<string, { max: number }>).reduce((a, p) => a + p.max, 0)).toBeGreaterThanOrEqual(Math.max(...counts));
  });

  it('max_heat_index is the yearly maximum of the NWS heat index from each model\'s tasmax and huss', async () => {
    const perModel = await Promise.all(MODELS.map(async (m) => perYear(await days(m, 'ssp585', '2050:2052', 'tasmax,huss'), ['tasmax', 'huss'], heatIndexK)));
    const res = await get(`/api/climate-data/${NYC}/ssp585/indicator/max_heat_index/?${CMIP6}&years=2050:2052&agg=min,max,avg`).expect(200);
    expect(res.body.units).toBe('F');
    expect(res.body.indicator.formula).toContain('Rothfusz');
    for (const year of ['2050', '2051', '2052']) {
      const want = stats(perModel.map((p) => toF(Math.max(...p.get(year)!))));
      expect(res.body.data[year].min).toBeCloseTo(want.min, 6);
      expect(res.body.data[year].max).toBeCloseTo(want.max, 6);
      expect(res.body.data[year].avg).toBeCloseTo(want.avg, 6);
    }
  });

  it('heat_index_threshold counts the days past the threshold, over custom spans too', async () => {
    const perModel = await Promise.all(MODELS.map(async (m) => perYear(await days(m, 'ssp585', '2052', 'tasmax,huss'), ['tasmax', 'huss'], heatIndexK)));
    const res = await get(`/api/climate-data/${NYC}/ssp585/indicator/heat_index_threshold/?${CMIP6}&years=2052&threshold=85&threshold_units=F&threshold_comparator=gt&agg=min,max`).expect(200);
    const counts = perModel.map((p) => p.get('2052')!.filter((x) => toF(x) > 85).length);
    expect(counts.some((c) => c > 0)).toBe(true);
    expect(res.body.data['2052']).toEqual({ min: Math.min(...counts), max: Math.max(...counts) });
    const custom = await get(`/api/climate-data/${NYC}/ssp585/indicator/heat_index_threshold/?${CMIP6}&years=2052&threshold=85&threshold_units=F&threshold_comparator=gt&agg=max&time_aggregation=custom&custom_time_agg=1-1:12-31`).expect(200);
    expect(custom.body.data['2052-01'].max).toBe(Math.max(...counts));
  });

  it('answer 400 on a dataset without the inputs, and for models that all lack them; leave out and name the others', async () => {
    const cmip5 = await get(`/api/climate-data/${NYC}/RCP85/indicator/max_heat_index/`).expect(400);
    expect(cmip5.body.detail).toContain('Dataset NEX-GDDP has no huss, which max_heat_index needs');
    await get(`/api/climate-data/${NYC}/ssp245/indicator/max_wet_bulb_temperature/?dataset=LOCA2`).expect(400);
    const only = await get(`/api/climate-data/${NYC}/ssp245/indicator/max_heat_index/?${CMIP6}&models=MIROC6,IPSL-CM6A-LR`).expect(400);
    expect(only.body.detail).toContain('MIROC6 has no huss');
    expect(only.body.detail).toContain('IPSL-CM6A-LR has no huss');
    const some = await get(`/api/climate-data/${NYC}/ssp245/indicator/max_wet_bulb_temperature/?${CMIP6}&models=ACCESS-CM2,NESM3,MIROC6&years=2050`).expect(200);
    // MIROC6 has hurs: it stays (this build has no days of it, so no value from it)
    expect(some.body.climate_models).toEqual(['ACCESS-CM2', 'MIROC6']);
    expect(some.body.models_left_out).toEqual([{ model: 'NESM3', lacks: ['hurs'] }]);
    const all = await get(`/api/climate-data/${NYC}/ssp245/indicator/max_heat_index/?${CMIP6}&years=2050`).expect(200);
    expect(all.body.climate_models).not.toContain('MIROC6');
    expect(all.body.models_left_out).toEqual([{ model: 'IPSL-CM6A-LR', lacks: ['huss'] }, { model: 'MIROC6', lacks: ['huss'] }, { model: 'NESM3', lacks: ['huss'] }]);
    // frost_days needs none of them: nothing is left out
    expect((await get(`/api/climate-data/${NYC}/ssp245/indicator/frost_days/?${CMIP6}&years=2050`).expect(200)).body.models_left_out).toBeUndefined();
  });

  it('are listed with their inputs, formula and source', async () => {
    const list = (await get('/api/indicator/').expect(200)).body as { name: string; variables: string[]; formula?: string }[];
    expect(list).toHaveLength(29);
    const byName = new Map(list.map((i) => [i.name, i]));
    expect(byName.get('wet_bulb_temperature_threshold')!.variables).toEqual(['tas', 'hurs']);
    expect(byName.get('heat_index_threshold')!.variables).toEqual(['tasmax', 'huss']);
    expect(byName.get('heat_index_threshold')!.formula).toContain('1013.25');
    expect(byName.get('frost_days')!.formula).toBeUndefined();
  });

  it('answer in CSV and Arrow, in a batch and over an area as in JSON', async () => {
    const qs = `${CMIP6}&years=2050:2051&agg=max`;
    const json = (await get(`/api/climate-data/${NYC}/ssp245/indicator/max_heat_index/?${qs}`).expect(200)).body;
    const csv = await get(`/api/climate-data/${NYC}/ssp245/indicator/max_heat_index/?${qs}&format=csv`).expect(200);
    const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => Number(r.value))).toEqual([json.data['2050'].max, json.data['2051'].max]);
    const table = await arrowTable(`/api/climate-data/${NYC}/ssp245/indicator/max_heat_index/?${qs}`);
    expect(table.numRows).toBe(2);

    // The models left out, in every CSV row (after units) and in the Arrow schema's metadata, as the JSON names them.
    const leftOut = [{ model: 'IPSL-CM6A-LR', lacks: ['huss'] }, { model: 'MIROC6', lacks: ['huss'] }, { model: 'NESM3', lacks: ['huss'] }];
    expect(json.models_left_out).toEqual(leftOut);
    expect(csv.text.split('\n')[0]).toBe('location,dataset,scenario,indicator,units,models_left_out,period,statistic,value');
    for (const r of rows) expect(r.models_left_out).toBe('IPSL-CM6A-LR: huss; MIROC6: huss; NESM3: huss');
    expect(JSON.parse(table.schema.metadata.get('models_left_out')!)).toEqual(leftOut);
    // Both variables lacked, after a baseline's columns.
    const wet = await get(`/api/climate-data/${NYC}/historical/indicator/max_wet_bulb_temperature/?${CMIP6}&years=2010&agg=max&models=CanESM5,NESM3&relative_to=1981&format=csv`, long).expect(200);
    expect(wet.text.split('\n')[0]).toBe('location,dataset,scenario,indicator,units,relative_to,change,models_left_out,period,statistic,value');
    const wetRows = parse(wet.text, { columns: true }) as Record<string, string>[];
    expect(wetRows).toHaveLength(1);
    expect(wetRows[0]).toMatchObject({ relative_to: '1981-2010', change: 'absolute', models_left_out: 'NESM3: hurs', period: '2010' });
    // An answer that left no model out keeps the columns and metadata it always had.
    const plain = await get(`/api/climate-data/${NYC}/ssp245/indicator/max_heat_index/?${qs}&models=ACCESS-CM2&format=csv`).expect(200);
    expect(plain.text.split('\n')[0]).toBe('location,dataset,scenario,indicator,units,period,statistic,value');
    const plainArrow = await arrowTable(`/api/climate-data/${NYC}/ssp245/indicator/max_heat_index/?${qs}&models=ACCESS-CM2`);
    expect(plainArrow.schema.metadata.has('models_left_out')).toBe(false);
    const batch = await request(t.app)
      .post(`/api/climate-data/batch/ssp245/indicator/max_heat_index/?${qs}`)
      .set('Authorization', `Token ${t.token}`)
      .send({ locations: [{ city: NYC }] })
      .expect(200);
    expect(batch.body.models_left_out).toEqual(json.models_left_out);
    expect(batch.body.results[0].data).toEqual(json.data);
    const areaRaw = await get(`/api/climate-data/area/ssp245/?${CMIP6}&years=2050&variables=hurs&city=${NYC}`).expect(200);
    expect(areaRaw.body.models_left_out).toEqual([{ model: 'BCC-CSM2-MR', lacks: ['hurs'] }, { model: 'NESM3', lacks: ['hurs'] }]);
    expect(areaRaw.body.data['2050'].hurs.filter((v: number | null) => v !== null)).toHaveLength(365);
    const area = await get(`/api/climate-data/area/ssp245/indicator/max_wet_bulb_temperature/?${qs}&city=${NYC}`).expect(200);
    expect(Object.keys(area.body.data)).toEqual(['2050', '2051']);
    expect(area.body.data['2050'].max).toBeGreaterThan(50);
  });

  it('take relative_to, windows and warming levels', async () => {
    const base = `/api/climate-data/${NYC}/ssp245/indicator/max_wet_bulb_temperature/?${CMIP6}`;
    const change = (await get(`${base}&time_aggregation=window&windows=2041:2060&relative_to=1981&agg=median`, long).expect(200)).body;
    expect(change.relative_to).toEqual({ start_year: 1981, end_year: 2010, change: 'absolute' });
    expect(Number.isFinite(change.data['2041-2060'].median)).toBe(true);
    const window = (await get(`${base}&time_aggregation=window&windows=2041:2060&agg=median`, long).expect(200)).body;
    const baseline = (await get(`/api/climate-data/${NYC}/historical/indicator/max_wet_bulb_temperature/?${CMIP6}&time_aggregation=window&windows=1981:2010&agg=median`, long).expect(200)).body;
    // with one model's series the median of changes is the change of medians; with three it need not be, so only the sign is checked
    expect(Math.sign(change.data['2041-2060'].median)).toBe(Math.sign(window.data['2041-2060'].median - baseline.data['1981-2010'].median));
    const warming = (await get(`${base}&warming_level=2.0&agg=median`, long).expect(200)).body;
    expect(warming.data['2.0'].model_count).toBeGreaterThan(0);
  });

  it('answer return levels on the two maxima', async () => {
    for (const name of ['max_wet_bulb_temperature', 'max_heat_index']) {
      const res = await get(`/api/climate-data/${NYC}/historical/indicator/${name}/?${CMIP6}&years=1985:2014&return_period=20&agg=median`, long).expect(200);
      expect(Number.isFinite(res.body.data['20'].median)).toBe(true);
      // The models left out, named in the CSV and Arrow return levels as in the JSON.
      expect(res.body.models_left_out.length).toBeGreaterThan(0);
      const csv = await get(`/api/climate-data/${NYC}/historical/indicator/${name}/?${CMIP6}&years=1985:2014&return_period=20&agg=median&format=csv`, long).expect(200);
      const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
      expect(csv.text.split('\n')[0]).toBe('location,dataset,scenario,indicator,units,fitting_window,models_left_out,return_period,statistic,value');
      for (const r of rows) expect(r.models_left_out).toBe(res.body.models_left_out.map((x: { model: string; lacks: string[] }) => `${x.model}: ${x.lacks.join(' ')}`).join('; '));
      const table = await arrowTable(`/api/climate-data/${NYC}/historical/indicator/${name}/?${CMIP6}&years=1985:2014&return_period=20&agg=median`, long);
      expect(JSON.parse(table.schema.metadata.get('models_left_out')!)).toEqual(res.body.models_left_out);
    }
    const res = await get(`/api/climate-data/${NYC}/historical/indicator/heat_index_threshold/?${CMIP6}&years=1985:2014&return_period=20&threshold=80&threshold_units=F&threshold_comparator=gt`, long).expect(400);
    expect(res.body.detail).toContain('return_period');
  });
});

describe('a NEX-GDDP-CMIP6 cell written without humidity (make ingest, or a build from before it)', () => {
  let tmp: string;
  let bare: TestApp;
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'humid-bare-'));
    fs.cpSync(inject('dataDir'), tmp, { recursive: true });
    const cell = t.catalog.cityCells.get(NYC)!.get('NEX-GDDP-CMIP6')!;
    const file = climateFile(tmp, 'NEX-GDDP-CMIP6', 'ssp245', cell)!;
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    await conn.run(`COPY (SELECT model, date, tasmax, tasmin, pr FROM read_parquet('${file}')) TO '${file}.bare' (FORMAT parquet)`);
    conn.closeSync();
    db.closeSync();
    fs.renameSync(`${file}.bare`, file);
    bare = await testApp({ THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' }, tmp);
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('answers 404 naming the variable, not 500', async () => {
    const raw = await get(`/api/climate-data/${NYC}/ssp245/?${CMIP6}&years=2050&variables=hurs`, bare).expect(404);
    expect(raw.body.detail).toContain('has no hurs');
    const ind = await get(`/api/climate-data/${NYC}/ssp245/indicator/max_heat_index/?${CMIP6}&years=2050`, bare).expect(404);
    expect(ind.body.detail).toContain('has no huss');
    await get(`/api/climate-data/${NYC}/ssp245/indicator/frost_days/?${CMIP6}&years=2050`, bare).expect(200);
  });
});
