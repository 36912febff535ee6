import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import request from 'supertest';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ROOT } from '../src/config.js';
import { INDICATORS } from '../src/indicators/metadata.js';
import { datasetLacks } from '../src/reference/datasetVariables.js';
import { CLI_SESSION, cliData, runCliScript } from './cliScript.js';
import { testApp, type TestApp } from './helpers.js';

let t: TestApp;
let dataDir: string;
beforeAll(async () => {
  t = await testApp({ THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' });
  dataDir = t.catalog.dataDir;
});

const apiParams = (name: string, units: string) => {
  const meta = INDICATORS.find((i) => i.name === name)!;
  const has = (p: string) => meta.parameters.some((x) => x.name === p);
  const q = [`agg=min,max,avg,95th`, `units=${encodeURIComponent(units)}`];
  if (has('threshold')) {
    q.push('threshold_comparator=gt');
    q.push(meta.variables[0] === 'pr' ? 'threshold=305.3722222222222&threshold_units=kg/m^2/s' : 'threshold=90&threshold_units=F');
  }
  if (has('percentile')) q.push('percentile=95');
  if (has('historic_range')) q.push('historic_range=1971');
  return q.join('&');
};

/** A CLI script's answer in a fresh in-memory DuckDB, as the API's `data`. */
async function cliAnswer(script: string): Promise<Record<string, Record<string, number>>> {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    return cliData(await runCliScript(conn, script));
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

/** sql/indicators/cli-session.sql with every template gives the API's answer. */
describe('the templates in a DuckDB CLI session', () => {
  const templates = fs.readdirSync(path.join(ROOT, 'sql', 'indicators')).filter((f) => !['macros.sql', 'cli-session.sql'].includes(f));

  it('has one template per indicator', () => {
    expect(templates.map((f) => f.replace('.sql', '')).sort()).toEqual(INDICATORS.map((i) => i.name).sort());
  });

  // The humid-heat indicators need NEX-GDDP-CMIP6's humidity: they are in the CMIP6 session below.
  const onNexGddp = INDICATORS.filter((i) => datasetLacks('NEX-GDDP', i.variables).length === 0);
  it('leaves out only the indicators whose inputs NEX-GDDP lacks', () => expect(INDICATORS.length - onNexGddp.length).toBe(4));
  it.each(onNexGddp.map((i) => [i.name, i.defaultUnits]))('%s gives the same answer as the API', async (name, units) => {
    const script = CLI_SESSION.replaceAll("'data/build/", `'${dataDir}/`)
      .replace(/^SET VARIABLE units = .*$/m, `SET VARIABLE units = '${units}';`)
      .replace(/^\.read sql\/indicators\/average_high_temperature\.sql$/m, `.read sql/indicators/${name}.sql`);
    const cli = await cliAnswer(script);
    const res = await request(t.app)
      .get(`/api/climate-data/5128581/RCP85/indicator/${name}/?${apiParams(name, units)}`)
      .set('Authorization', `Token ${t.token}`)
      .expect(200);
    expect(Object.keys(cli).length).toBeGreaterThan(0);
    expect(cli, JSON.stringify([cli, res.body.data])).toEqual(res.body.data);
  });
});

/**
 * The same session on NEX-GDDP-CMIP6 (the same 0.25 degree cell id as NEX-GDDP): ssp585, the
 * suite build's three CMIP6 models (a 360-day one among them) and the 1981-2010 range.
 */
describe('the templates in a DuckDB CLI session, on NEX-GDDP-CMIP6', () => {
  const MODELS = "['ACCESS-CM2', 'CanESM5', 'UKESM1-0-LL']";
  it.each(INDICATORS.map((i) => [i.name, i.defaultUnits]))('%s gives the same answer as the API', async (name, units) => {
    const script = CLI_SESSION.replaceAll("'data/build/", `'${dataDir}/`)
      .replaceAll('/NEX-GDDP/RCP85/', '/NEX-GDDP-CMIP6/ssp585/')
      .replaceAll('/NEX-GDDP/historical/', '/NEX-GDDP-CMIP6/historical/')
      .replace(/^SET VARIABLE models = .*$/m, `SET VARIABLE models = ${MODELS};`)
      .replace(/^SET VARIABLE historic_start = .*$/m, 'SET VARIABLE historic_start = 1981;')
      .replace(/^SET VARIABLE historic_end = .*$/m, 'SET VARIABLE historic_end = 2010;')
      .replace(/^SET VARIABLE units = .*$/m, `SET VARIABLE units = '${units}';`)
      .replace(/^\.read sql\/indicators\/average_high_temperature\.sql$/m, `.read sql/indicators/${name}.sql`);
    expect(script).toContain('/NEX-GDDP-CMIP6/ssp585/');
    const cli = await cliAnswer(script);
    const qs = apiParams(name, units).replace('historic_range=1971', 'historic_range=1981');
    const res = await request(t.app)
      .get(`/api/climate-data/5128581/ssp585/indicator/${name}/?dataset=NEX-GDDP-CMIP6&models=ACCESS-CM2,CanESM5,UKESM1-0-LL&${qs}`)
      .set('Authorization', `Token ${t.token}`)
      .expect(200);
    expect(Object.keys(cli).length).toBeGreaterThan(0);
    expect(cli, JSON.stringify([cli, res.body.data])).toEqual(res.body.data);
  });
});

/** The session with each file variable a list of two cells' files answers each cell as the session with its file alone. */
describe('the templates in a DuckDB CLI session, for two cells at once', () => {
  const other = () => {
    const has = (kind: string, scenario: string, f: string) => fs.existsSync(path.join(dataDir, kind, 'NEX-GDDP', scenario, f));
    return fs.readdirSync(path.join(dataDir, 'climate', 'NEX-GDDP', 'RCP85')).find((f) => f !== '752103.parquet' && has('climate', 'historical', f) && has('monthly', 'RCP85', f))!.replace('.parquet', '');
  };
  const session = (name: string, cells: string[]) =>
    CLI_SESSION.replaceAll("'data/build/", `'${dataDir}/`)
      .replace(/'([^'\n]*\/)752103\.parquet'/g, (_, dir: string) => (cells.length === 1 ? `'${dir}${cells[0]}.parquet'` : `[${cells.map((c) => `'${dir}${c}.parquet'`).join(', ')}]`))
      .replace(/^\.read sql\/indicators\/average_high_temperature\.sql$/m, `.read sql/indicators/${name}.sql`);
  const rowsOf = async (script: string) => {
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      return await runCliScript(conn, script);
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  };
  it.each(['frost_days', 'heat_wave_incidents', 'extreme_heat_events', 'accumulated_freezing_degree_days', 'dry_spells'])('%s', async (name) => {
    const cells = ['752103', other()];
    const both = await rowsOf(session(name, cells));
    for (const [i, cell] of cells.entries()) {
      const alone = cliData(await rowsOf(session(name, [cell])));
      expect(Object.keys(alone).length).toBeGreaterThan(0);
      expect(cliData(both.filter((r) => r.cell === i)), `cell ${i}`).toEqual(alone);
    }
    expect(cliData(both.filter((r) => r.cell === 0))).not.toEqual(cliData(both.filter((r) => r.cell === 1)));
  });
});

describe('accumulated_freezing_degree_days from the monthly summaries', () => {
  // Years and offset years are read from the summaries' afdd_year and afdd_offset_year; they must
  // equal the days folded (max_running_sum) to the bit, for every model, with and without a gap in
  // the years, and for the baseline's periods.
  it.each(['yearly', 'offset_yearly'])('%s equals the days folded', async (agg) => {
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      await runCliScript(conn, CLI_SESSION.replaceAll("'data/build/", `'${dataDir}/`).replace(/^\.read sql\/indicators\/average_high_temperature\.sql$/m, ''));
      await conn.run(`SET VARIABLE models = NULL::VARCHAR[]`);
      await conn.run(`SET VARIABLE time_aggregation = '${agg}'`);
      const rows = async (sql: string) =>
        (await conn.runAndReadAll(`SELECT cell, period, model, value FROM (${sql}) ORDER BY cell, period, model`)).getRowObjectsJS().map((r) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? Number(v) : v)));
      for (const [years, baseline] of [['range(2050, 2101)', 'NULL'], ['[2050, 2051, 2053, 2054, 2055]', 'range(1971, 1976)']]) {
        await conn.run(`SET VARIABLE years = ${years}::INTEGER[]`);
        await conn.run(`SET VARIABLE baseline_years = ${baseline}::INTEGER[]`);
        const months = await rows(`FROM freezing_per_model(getvariable('time_aggregation'), getvariable('baseline_years'))`);
        const days = await rows(`FROM max_running_sum(below_freezing(tasmax, tasmin), getvariable('baseline_years'))`);
        expect(months.length, `${agg} ${years}`).toBeGreaterThanOrEqual(3);
        expect(months.some((r) => JSON.parse(r).value > 0)).toBe(true);
        expect(months, `${agg} ${years} ${baseline}`).toEqual(days);
      }
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  });
});

describe('month_cutting_days', () => {
  it('has the columns and types of indicator_days whether it reads the days or not', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    const settings = CLI_SESSION.replaceAll("'data/build/", `'${dataDir}/`).replace(/^\.read sql\/indicators\/average_high_temperature\.sql$/m, '');
    await runCliScript(conn, settings);
    const columns = async (agg: string) => {
      await conn.run(`SET VARIABLE time_aggregation = '${agg}'`);
      return (await conn.runAndReadAll(`DESCRIBE FROM month_cutting_days(getvariable('time_aggregation'))`)).getRowObjectsJS().map((r) => `${r.column_name} ${r.column_type}`);
    };
    const days = (await conn.runAndReadAll(`DESCRIBE FROM indicator_days(getvariable('file'), getvariable('monthly_file'), getvariable('models'), getvariable('years'), 'custom', getvariable('spans'))`))
      .getRowObjectsJS()
      .map((r) => `${r.column_name} ${r.column_type}`);
    expect(days).toContain('tasmin DOUBLE');
    expect(await columns('yearly')).toEqual(days);
    expect(await columns('custom')).toEqual(days);
    expect((await conn.runAndReadAll(`SELECT count(*) AS n FROM month_cutting_days('monthly')`)).getRowObjectsJS()).toEqual([{ n: 0n }]);
    conn.closeSync();
    db.closeSync();
  });
});

/**
 * The session's worked example at a warming level, uncommented, on the build whose years hold the
 * windows (test/support/warmingBuild.ts): the API's answer at 2 °C, and the model count. Then the
 * same with other time aggregations, a percent change, and on NEX-GDDP-CMIP6.
 */
describe('the DuckDB CLI session at a warming level', () => {
  let w: TestApp;
  beforeAll(async () => {
    w = await testApp({ THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' }, inject('warmingDataDir'));
  });
  /** The session with the worked example's lines uncommented (and its own .read instead of the session's). */
  const workedExample = () => {
    const lines = CLI_SESSION.split('\n');
    const from = lines.findIndex((l) => l.startsWith('-- Worked example'));
    const example = lines.slice(from).filter((l) => l.startsWith('--   ') && !l.startsWith('--   /api/')).map((l) => l.slice(5));
    expect(example.at(-1)).toBe('.read sql/indicators/frost_days.sql');
    return lines.filter((l) => !l.startsWith('.read sql/indicators/average_high_temperature.sql')).join('\n').replaceAll("'data/build/", `'${inject('warmingDataDir')}/`) + '\n' + example.join('\n') + '\n';
  };
  type Entries = { key: string; value: number }[];
  type Row = { period: string; stats: { entries: Entries } | Entries; model_count: bigint };
  /** The CLI rows as the API's data at warming levels: level -> (slot ->) statistics and model_count. */
  const asData = (rows: Row[]) => {
    const out: Record<string, Record<string, unknown>> = {};
    for (const r of rows) {
      const entries = Array.isArray(r.stats) ? r.stats : r.stats.entries;
      const stats = { ...Object.fromEntries(entries.map((e) => [e.key, e.value])), model_count: Number(r.model_count) };
      const [level, slot] = r.period.split('/');
      if (slot === undefined) out[level!] = stats;
      else (out[level!] ??= {})[slot] = stats;
    }
    return out;
  };
  const cliRows = async (script: string) => {
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      return (await runCliScript(conn, script)) as unknown as Row[];
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  };
  const api = async (path: string) => (await request(w.app).get(path).set('Authorization', `Token ${w.token}`).expect(200)).body;

  it('gives the API answer of frost days at 2 °C against 1971-2000, and the model count', async () => {
    const rows = await cliRows(workedExample());
    expect(rows).toHaveLength(1);
    const body = await api('/api/climate-data/5128581/RCP85/indicator/frost_days/?warming_level=2.0&relative_to=1971&agg=min,max,avg,95th');
    expect(body.data['2.0'].model_count).toBe(2);
    expect(asData(rows)).toEqual(body.data);
  });

  /** More settings after the example's, before its .read. */
  const beforeRead = (script: string, settings: string) => script.replace(/\n\.read sql\/indicators\/frost_days\.sql\n$/, `\n${settings}\n.read sql/indicators/frost_days.sql\n`);
  // An offset year also needs its next calendar year read.
  const offsetYears = (scenario: string, cut: number) =>
    `SET VARIABLE ${scenario} = (SELECT list(DISTINCT y ORDER BY y) FROM (SELECT y FROM warming_years(getvariable('warming_level')) UNION SELECT y + 1 FROM warming_years(getvariable('warming_level'))) WHERE y ${cut === 2006 ? '>= 2006' : '< 2006'});`;
  it.each([
    ['monthly, percent change', "SET VARIABLE time_aggregation = 'monthly';\nSET VARIABLE change = 'percent';", 'time_aggregation=monthly&change=percent&relative_to=1971'],
    ['offset_yearly, no baseline', `SET VARIABLE time_aggregation = 'offset_yearly';\nSET VARIABLE warming_baseline = NULL::STRUCT(s INTEGER, e INTEGER);\n${offsetYears('years', 2006)}\n${offsetYears('baseline_years', 0)}`, 'time_aggregation=offset_yearly'],
  ])('%s', async (_, settings, qs) => {
    const script = beforeRead(workedExample(), settings);
    expect(script).toContain(settings);
    const body = await api(`/api/climate-data/5128581/RCP85/indicator/frost_days/?warming_level=2.0&agg=min,max,avg,95th&${qs}`);
    const data = asData(await cliRows(script));
    // The service names every month; the session the months some model has a value in (all of them here).
    expect(data).toEqual(body.data);
  });

  it('on NEX-GDDP-CMIP6, with windows in the historical run and a 1981-2010 baseline', async () => {
    const script = workedExample()
      .replaceAll('/NEX-GDDP/RCP85/', '/NEX-GDDP-CMIP6/ssp245/')
      .replaceAll('/NEX-GDDP/historical/', '/NEX-GDDP-CMIP6/historical/')
      .replace("SET VARIABLE warming_dataset = 'NEX-GDDP';", "SET VARIABLE warming_dataset = 'NEX-GDDP-CMIP6';")
      .replace("SET VARIABLE warming_scenario = 'RCP85';", "SET VARIABLE warming_scenario = 'ssp245';")
      .replaceAll("SET VARIABLE warming_level = 2.0;", 'SET VARIABLE warming_level = 1.0;')
      .replaceAll("{'s': 1971, 'e': 2000}", "{'s': 1981, 'e': 2010}")
      .replaceAll('WHERE y >= 2006', 'WHERE y >= 2015')
      .replaceAll('range(1971, 2001))) WHERE y < 2006', 'range(1981, 2011))) WHERE y < 2015');
    expect(script).toContain('range(1981, 2011))) WHERE y < 2015');
    const body = await api('/api/climate-data/5128581/ssp245/indicator/frost_days/?dataset=NEX-GDDP-CMIP6&warming_level=1.0&relative_to=1981&agg=min,max,avg,95th');
    expect(body.warming_levels.levels['1.0'].models.some((m: { start_year: number }) => m.start_year < 2000)).toBe(true);
    expect(asData(await cliRows(script))).toEqual(body.data);
  });
});
