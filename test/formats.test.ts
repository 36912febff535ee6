import { tableFromIPC, Type, type Table } from 'apache-arrow';
import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { indicatorArrow } from '../src/indicators/indicatorArrow.js';
import { indicatorCsv } from '../src/indicators/indicatorCsv.js';
import { testApp, type TestApp } from './helpers.js';

const NYC = 5128581;
const ARROW = 'application/vnd.apache.arrow.stream';
let t: TestApp;
const get = (url: string, app = t) => request(app.app).get(url).set('Authorization', `Token ${app.token}`);

/** The body as bytes whatever its type (supertest only buffers text and JSON by itself). */
const bytes = (req: request.Test) =>
  req.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });

const arrow = async (url: string) => {
  const res = await bytes(get(url)).expect(200).expect('Content-Type', ARROW);
  return { res, table: tableFromIPC(res.body as Buffer) };
};

const csv = async (url: string) => {
  const res = await get(url).expect(200).expect('Content-Type', 'text/csv; charset=utf-8');
  return { res, rows: parse(res.text, { columns: true }) as Record<string, string>[], header: res.text.slice(0, res.text.indexOf('\n')) };
};

beforeAll(async () => {
  t = await testApp({ THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '1000000/day' });
});

const UNITS: Record<string, string> = { tasmax: 'K', tasmin: 'K', pr: 'kg m-2 s-1' };
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
/** The date of a JSON slot: slot 59 is Feb 29 in leap years, Mar 1 otherwise; slot 365 of a common year is no date. */
const slotDate = (year: number, slot: number) => new Date(Date.UTC(year, 0, 1 + slot)).toISOString().slice(0, 10);

/** Every value of a raw JSON answer keyed `date|variable`, with the padding slot checked to be null. */
function rawValues(data: Record<string, Record<string, (number | null)[]>>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [year, vars] of Object.entries(data)) {
    for (const [variable, slots] of Object.entries(vars)) {
      expect(slots).toHaveLength(366);
      if (!isLeap(Number(year))) expect(slots[365]).toBeNull();
      slots.forEach((v, slot) => {
        if (v !== null) out.set(`${slotDate(Number(year), slot)}|${variable}`, v);
      });
    }
  }
  return out;
}

/** Arrow's date32 reads back as epoch milliseconds (or a Date in older releases). */
const isoDay = (d: unknown) => new Date(d instanceof Date ? d.getTime() : Number(d)).toISOString().slice(0, 10);

function arrowRows(table: Table): Record<string, unknown>[] {
  return table.toArray().map((r) => r.toJSON() as Record<string, unknown>);
}

describe('raw data as CSV and Arrow', () => {
  const cases = [
    { name: 'all years and variables, agg avg', qs: '' },
    { name: 'one 365-day model (no Feb 29), agg max, two variables', qs: 'models=CCSM4&variables=pr,tasmin&agg=max' },
    { name: 'a leap and a common year, agg min', qs: 'years=2051:2052&agg=min&models=ACCESS1-0,MIROC5' },
  ];

  for (const c of cases) {
    it(`CSV has one row per JSON value: ${c.name}`, async () => {
      const json = (await get(`/api/climate-data/${NYC}/RCP85/?${c.qs}`).expect(200)).body;
      const want = rawValues(json.data);
      const agg = /agg=(\w+)/.exec(c.qs)?.[1] ?? 'avg';
      const { rows, header } = await csv(`/api/climate-data/${NYC}/RCP85/?${c.qs}&format=csv`);
      expect(header).toBe('location,dataset,scenario,units,date,model,variable,value');
      expect(rows.length).toBe(want.size);
      const seen = new Set<string>();
      for (const r of rows) {
        const key = `${r.date}|${r.variable}`;
        expect(seen.has(key)).toBe(false);
        seen.add(key);
        expect(r.value).not.toBe('');
        // The same shortest float32 decimal as the JSON, so the numbers are equal, not just close.
        expect(Number(r.value)).toBe(want.get(key));
        expect([r.location, r.dataset, r.scenario, r.model, r.units]).toEqual([`city/${NYC}`, 'NEX-GDDP', 'RCP85', agg, UNITS[r.variable!]]);
      }
      // Variables in request order, dates ascending within each.
      const order = rows.map((r) => `${json.variables.indexOf(r.variable)}|${r.date}`);
      expect(order).toEqual([...order].sort());
    });

    it(`Arrow has the CSV's rows with typed columns: ${c.name}`, async () => {
      const json = (await get(`/api/climate-data/${NYC}/RCP85/?${c.qs}`).expect(200)).body;
      const want = rawValues(json.data);
      const agg = /agg=(\w+)/.exec(c.qs)?.[1] ?? 'avg';
      const { table } = await arrow(`/api/climate-data/${NYC}/RCP85/?${c.qs}&format=arrow`);
      const fields = table.schema.fields;
      expect(fields.map((f) => f.name)).toEqual(['date', 'model', 'variable', 'value']);
      expect(fields[0]!.typeId).toBe(Type.Date);
      expect(String(fields[0]!.type)).toBe('Date32<DAY>');
      for (const f of [fields[1]!, fields[2]!]) {
        expect(f.typeId).toBe(Type.Dictionary);
        expect(String(f.type)).toMatch(/^Dictionary<Int(8|16|32), Utf8>$/);
      }
      expect(String(fields[3]!.type)).toBe('Float32');
      expect(JSON.parse(fields[3]!.metadata.get('units')!)).toEqual(Object.fromEntries(json.variables.map((v: string) => [v, UNITS[v]])));
      const meta = table.schema.metadata;
      expect(meta.get('location')).toBe(`city/${NYC}`);
      expect(meta.get('dataset')).toBe('NEX-GDDP');
      expect(meta.get('scenario')).toBe('RCP85');
      expect(meta.get('agg')).toBe(agg);
      expect(JSON.parse(meta.get('climate_models')!)).toEqual(json.climate_models);
      expect(JSON.parse(meta.get('location_feature')!)).toEqual(json.city);

      const rows = arrowRows(table);
      expect(rows.length).toBe(want.size);
      // Dates ascending, variables in request order within a date.
      const order = rows.map((r) => `${isoDay(r.date)}|${json.variables.indexOf(r.variable)}`);
      expect(order).toEqual([...order].sort());
      const seen = new Set<string>();
      for (const r of rows) {
        const key = `${isoDay(r.date)}|${r.variable}`;
        expect(seen.has(key)).toBe(false);
        seen.add(key);
        expect(r.model).toBe(agg);
        // float32 in Arrow: the JSON's decimal rounds to exactly the stored value.
        expect(r.value).toBe(Math.fround(want.get(key)!));
      }
    });
  }

  it('has no row for Feb 29 when no chosen model has one, nor for the padding slot of common years', async () => {
    const { rows } = await csv(`/api/climate-data/${NYC}/RCP85/?models=CCSM4&variables=tasmax&format=csv`);
    const dates = new Set(rows.map((r) => r.date));
    expect(dates.has('2052-02-28') && dates.has('2052-03-01') && dates.has('2052-12-31')).toBe(true);
    expect(dates.has('2052-02-29')).toBe(false);
    expect(rows.filter((r) => r.date!.startsWith('2051-'))).toHaveLength(365);
    expect(rows.filter((r) => r.date!.startsWith('2052-'))).toHaveLength(365);
    const all = await csv(`/api/climate-data/${NYC}/RCP85/?variables=tasmax&format=csv`);
    expect(all.rows.filter((r) => r.date!.startsWith('2052-'))).toHaveLength(366);
    expect(all.rows.some((r) => r.date === '2052-02-29')).toBe(true);
  });

  it('names the map cell for the lat/lon endpoint, in the rows, metadata and file name', async () => {
    const nyc = t.catalog.cityById.get(NYC)!;
    const url = `/api/climate-data/${nyc.lat}/${nyc.lon}/RCP85/?years=2050&variables=pr`;
    const json = (await get(url).expect(200)).body;
    const [lon, lat] = json.feature.geometry.coordinates;
    const { res, rows } = await csv(`${url}&format=csv`);
    expect(new Set(rows.map((r) => r.location))).toEqual(new Set([`map-cell/${lat}/${lon}`]));
    expect(res.headers['content-disposition']).toBe(`attachment; filename="climate-data_${lat}_${lon}_RCP85_NEX-GDDP.csv"`);
    const byCity = await csv(`/api/climate-data/${NYC}/RCP85/?years=2050&variables=pr&format=csv`);
    expect(rows.map((r) => r.value)).toEqual(byCity.rows.map((r) => r.value));
    const { res: ares, table } = await arrow(`${url}&format=arrow`);
    expect(table.schema.metadata.get('location')).toBe(`map-cell/${lat}/${lon}`);
    expect(JSON.parse(table.schema.metadata.get('location_feature')!)).toEqual(json.feature);
    expect(ares.headers['content-disposition']).toBe(`attachment; filename="climate-data_${lat}_${lon}_RCP85_NEX-GDDP.arrows"`);
  });

  it('answers a header-only CSV and an empty Arrow table where JSON has no data', async () => {
    const json = (await get(`/api/climate-data/${NYC}/RCP85/?years=1990`).expect(200)).body;
    expect(json.data).toEqual({});
    const { res } = await csv(`/api/climate-data/${NYC}/RCP85/?years=1990&format=csv`);
    expect(res.text).toBe('location,dataset,scenario,units,date,model,variable,value\n');
    const { table } = await arrow(`/api/climate-data/${NYC}/RCP85/?years=1990&format=arrow`);
    expect(table.numRows).toBe(0);
    expect(table.schema.fields.map((f) => f.name)).toEqual(['date', 'model', 'variable', 'value']);
  });
});

describe('indicator data as CSV and Arrow', () => {
  const cases = [
    { indicator: 'frost_days', qs: 'agg=min,max,avg,median,stddev,95th,5th' },
    { indicator: 'average_high_temperature', qs: 'time_aggregation=monthly&agg=avg,25th,median,99th&units=C' },
    { indicator: 'total_precipitation', qs: 'time_aggregation=quarterly&units=mm&models=ACCESS1-0,CCSM4&agg=max,stddev,50th' },
    { indicator: 'max_high_temperature', qs: 'time_aggregation=offset_yearly&models=MIROC5&agg=avg,stddev&units=F' },
  ];

  for (const c of cases) {
    it(`${c.indicator} ${c.qs}: CSV and Arrow hold every JSON value`, async () => {
      const url = `/api/climate-data/${NYC}/RCP85/indicator/${c.indicator}/?${c.qs}`;
      const json = (await get(url).expect(200)).body;
      const want: [string, string, number | null][] = [];
      for (const [period, stats] of Object.entries(json.data as Record<string, Record<string, number | null>>)) {
        for (const [stat, value] of Object.entries(stats)) want.push([period, stat, value]);
      }
      expect(want.length).toBeGreaterThan(0);

      const { rows, header, res } = await csv(`${url}&format=csv`);
      expect(header).toBe('location,dataset,scenario,indicator,units,period,statistic,value');
      expect(rows.map((r) => [r.period, r.statistic, r.value === '' ? null : Number(r.value)])).toEqual(want);
      for (const r of rows) expect([r.location, r.dataset, r.scenario, r.indicator, r.units]).toEqual([`city/${NYC}`, 'NEX-GDDP', 'RCP85', c.indicator, json.units]);
      expect(res.headers['content-disposition']).toBe(`attachment; filename="climate-data_${NYC}_RCP85_NEX-GDDP_${c.indicator}.csv"`);

      const { table, res: ares } = await arrow(`${url}&format=arrow`);
      const [period, statistic, value] = table.schema.fields;
      expect([period!.name, statistic!.name, value!.name]).toEqual(['period', 'statistic', 'value']);
      expect(period!.typeId).toBe(Type.Dictionary);
      expect(statistic!.typeId).toBe(Type.Dictionary);
      expect(String(value!.type)).toBe('Float64');
      expect(value!.nullable).toBe(true);
      expect(value!.metadata.get('units')).toBe(json.units);
      const meta = table.schema.metadata;
      expect([meta.get('location'), meta.get('dataset'), meta.get('scenario'), meta.get('indicator'), meta.get('time_aggregation'), meta.get('units')]).toEqual([
        `city/${NYC}`,
        'NEX-GDDP',
        'RCP85',
        c.indicator,
        json.time_aggregation,
        json.units,
      ]);
      expect(arrowRows(table).map((r) => [r.period, r.statistic, r.value])).toEqual(want);
      expect(ares.headers['content-disposition']).toBe(`attachment; filename="climate-data_${NYC}_RCP85_NEX-GDDP_${c.indicator}.arrows"`);
    });
  }
});

describe('indicator writers', () => {
  // The statistics SQL gives null where a statistic is undefined; the test data never produces one.
  const rows = [
    { period: '2050', stats: [['avg', 1.5], ['stddev', null]] as [string, number | null][] },
    { period: '2051', stats: [['avg', NaN], ['stddev', 0.25]] as [string, number | null][] },
  ];
  const labels = { location: 'city/1', feature: '{}', dataset: 'LOCA', scenario: 'RCP45', fileStem: 'x' };
  const ctx = { labels, indicator: 'frost_days', units: 'days', timeAggregation: 'yearly', models: ['a', 'b'] };

  it('write a null or non-finite statistic as an empty CSV value and an Arrow null, like the JSON null', () => {
    const text = indicatorCsv(rows, ctx);
    expect(text.split('\n').slice(1)).toEqual([
      'city/1,LOCA,RCP45,frost_days,days,2050,avg,1.5',
      'city/1,LOCA,RCP45,frost_days,days,2050,stddev,',
      'city/1,LOCA,RCP45,frost_days,days,2051,avg,',
      'city/1,LOCA,RCP45,frost_days,days,2051,stddev,0.25',
      '',
    ]);
    const table = tableFromIPC(indicatorArrow(rows, ctx));
    expect(arrowRows(table).map((r) => [r.period, r.statistic, r.value])).toEqual([
      ['2050', 'avg', 1.5],
      ['2050', 'stddev', null],
      ['2051', 'avg', null],
      ['2051', 'stddev', 0.25],
    ]);
    expect(table.getChild('value')!.nullCount).toBe(2);
  });
});

describe('format negotiation', () => {
  const raw = `/api/climate-data/${NYC}/RCP85/?years=2050&variables=tasmax`;
  const indicator = `/api/climate-data/${NYC}/RCP85/indicator/frost_days/?years=2050`;

  it('chooses CSV or Arrow from Accept, by q-value, and JSON otherwise', async () => {
    for (const url of [raw, indicator]) {
      await get(url).set('Accept', 'text/csv').expect(200).expect('Content-Type', /^text\/csv/);
      await bytes(get(url).set('Accept', ARROW)).expect(200).expect('Content-Type', ARROW);
      await bytes(get(url).set('Accept', `text/csv;q=0.5, ${ARROW}`)).expect(200).expect('Content-Type', ARROW);
      await get(url).set('Accept', `text/csv, ${ARROW};q=0.2`).expect(200).expect('Content-Type', /^text\/csv/);
      for (const accept of ['application/json', '*/*', 'text/html,application/xhtml+xml', `application/json, text/csv;q=0.9`]) {
        const res = await get(url).set('Accept', accept).expect(200).expect('Content-Type', /^application\/json/);
        expect(res.headers['content-disposition']).toBeUndefined();
        expect(res.headers.vary).toMatch(/Accept/);
      }
    }
  });

  it('lets the format parameter win over Accept', async () => {
    for (const url of [raw, indicator]) {
      await get(`${url}&format=json`).set('Accept', 'text/csv').expect(200).expect('Content-Type', /^application\/json/);
      await get(`${url}&format=csv`).set('Accept', ARROW).expect(200).expect('Content-Type', /^text\/csv/);
      const res = await bytes(get(`${url}&format=arrow`).set('Accept', 'text/csv')).expect(200).expect('Content-Type', ARROW);
      expect(res.headers.vary).toMatch(/Accept/);
    }
  });

  it('answers 400 naming format and its values for a bad or repeated format', async () => {
    for (const url of [raw, indicator]) {
      expect((await get(`${url}&format=xml`).expect(400).expect('Content-Type', /json/)).body).toEqual({ detail: "format must be one of json, csv, arrow; got 'xml'." });
      expect((await get(`${url}&format=csv&format=arrow`).expect(400)).body).toEqual({ detail: 'format must be one of json, csv, arrow; got several values.' });
    }
  });

  it('keeps errors JSON whatever format was asked for', async () => {
    for (const [qs, accept] of [
      ['&format=csv', '*/*'],
      ['', ARROW],
    ]) {
      const res = await get(`/api/climate-data/${NYC}/RCP85/?years=20x0${qs}`).set('Accept', accept!).expect(400).expect('Content-Type', /json/);
      expect(res.body.detail).toMatch(/^years accepts/);
      expect(res.headers['content-disposition']).toBeUndefined();
      await get(`/api/climate-data/${NYC}/RCP85/indicator/nope/?${qs}`).set('Accept', accept!).expect(404).expect('Content-Type', /json/);
    }
  });

  it('throttles CSV and Arrow like JSON, with a JSON 429', async () => {
    const app = await testApp({ THROTTLE_BURST_RATE: '2/min' });
    await get(`${raw}&format=csv`, app).expect(200);
    await bytes(get(`${indicator}&format=arrow`, app)).expect(200);
    const res = await get(`${raw}&format=csv`, app).expect(429).expect('Content-Type', /json/);
    expect(res.body.detail).toMatch(/^Request was throttled/);
  });
});
