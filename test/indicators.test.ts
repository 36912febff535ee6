import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { sqlFile } from '../src/db/sqlFiles.js';
import { fromMonths, SUMMARISED_BASETEMP, SUMMARISED_PERCENTILE, servedStatement, variablesOf } from '../src/indicators/query.js';
import { temperatureToK } from '../src/indicators/params.js';
import { testApp, type TestApp } from './helpers.js';

/**
 * The indicators on the suite's synthetic multi-day data, checked against a plain TypeScript
 * re-implementation of their definitions (shared/reference/indicators.md section 3) fed from the
 * raw-data endpoint, plus every validation error.
 */

const NYC = 5128581;
const MODELS = ['ACCESS1-0', 'CCSM4', 'MIROC5'];
let t: TestApp;
const get = (url: string) => request(t.app).get(url).set('Authorization', `Token ${t.token}`);

type Daily = { date: Date; tasmax: number; tasmin: number; pr: number };
// ---- the oracle ----
const slotOf = (d: Date) => Math.round((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000);
const pad = (n: number) => String(n).padStart(2, '0');
type Period = (d: Date) => string | undefined;
const PERIODS: Record<string, Period> = {
  yearly: (d) => String(d.getUTCFullYear()),
  monthly: (d) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}`,
  quarterly: (d) => `${d.getUTCFullYear()}-Q${Math.floor(d.getUTCMonth() / 3) + 1}`,
  offset_yearly: (d) => {
    const start = slotOf(d) >= 180 ? d.getUTCFullYear() : d.getUTCFullYear() - 1;
    return `${start}-${start + 1}`;
  },
};
function customPeriod(spans: [number, number][]): Period {
  return (d) => {
    const md = (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
    const i = spans.findIndex(([s, e]) => md >= s && md <= e);
    return i < 0 ? undefined : `${d.getUTCFullYear()}-${pad(i + 1)}`;
  };
}

function npPercentile(values: number[], q: number): number {
  const v = [...values].sort((a, b) => a - b);
  const idx = (q / 100) * (v.length - 1);
  const lo = Math.floor(idx);
  const hi = Math.min(lo + 1, v.length - 1);
  const w = idx - lo;
  return v[lo]! * (1 - w) + v[hi]! * w;
}
const runs = (flags: boolean[]) => {
  const out: number[] = [];
  let n = 0;
  for (const f of flags) {
    if (f) n++;
    else if (n > 0) {
      out.push(n);
      n = 0;
    }
  }
  if (n > 0) out.push(n);
  return out;
};

function expectClose(actual: Record<string, Record<string, number>>, expected: Record<string, Record<string, number>>) {
  expect(Object.keys(actual)).toEqual(Object.keys(expected));
  for (const [k, stats] of Object.entries(expected)) {
    expect(Object.keys(actual[k]!).sort(), k).toEqual(Object.keys(stats).sort());
    for (const [s, v] of Object.entries(stats)) {
      const a = actual[k]![s]!;
      expect(Math.abs(a - v), `${k} ${s}: ${a} vs ${v}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(v)));
    }
  }
}

// Stored values are float32; the oracle works on the same float32 values as the raw endpoint prints.
const K_TO_F = (x: number) => (x + -459.67 / 1.8) * 1.8;

/**
 * The re-implementation's checks on one dataset and scenario of the suite's build: `MODELS` are the
 * build's models of that dataset with the scenario, `year` one of the scenario's years there, and
 * `HISTORICAL` its models with a historical run: the historic baselines average all of them,
 * whatever `models` asks (shared/reference/indicators.md, section 1.3).
 */
function reimplementationSuite(dataset: string, scenario: string, MODELS: string[], year: number, HISTORICAL = MODELS) {
/** model -> days in date order, from the raw endpoint (one model at a time: no cross-model mixing). */
const raw = new Map<string, Daily[]>();
const historical = new Map<string, Daily[]>();

async function fetchDays(scenario: string, model: string): Promise<Daily[]> {
  const res = await get(`/api/climate-data/${NYC}/${scenario}/?dataset=${dataset}&models=${model}`).expect(200);
  const days: Daily[] = [];
  for (const [year, v] of Object.entries(res.body.data) as [string, Record<string, (number | null)[]>][]) {
    for (let slot = 0; slot < 366; slot++) {
      if (v.tasmax![slot] === null) continue;
      // The endpoint prints the shortest decimal of each float32; fround recovers the stored value.
      days.push({ date: new Date(Date.UTC(Number(year), 0, 1 + slot)), tasmax: Math.fround(v.tasmax![slot]!), tasmin: Math.fround(v.tasmin![slot]!), pr: Math.fround(v.pr![slot]!) });
    }
  }
  return days;
}

beforeAll(async () => {
  for (const m of MODELS) raw.set(m, await fetchDays(scenario, m));
  for (const m of HISTORICAL) historical.set(m, await fetchDays('historical', m));
});

/** Per period: the per-model values, then min/max/avg across models. */
function oracle(period: Period, reduce: (days: Daily[], model: string) => number, opts: { offset?: boolean } = {}) {
  const perPeriod = new Map<string, number[]>();
  for (const m of MODELS) {
    const years = new Set(raw.get(m)!.map((d) => d.date.getUTCFullYear()));
    const buckets = new Map<string, Daily[]>();
    for (const d of raw.get(m)!) {
      const k = period(d.date);
      if (k === undefined) continue;
      if (opts.offset) {
        const start = Number(k.slice(0, 4));
        if (!years.has(start) || !years.has(start + 1)) continue;
      }
      if (!buckets.has(k)) buckets.set(k, []);
      buckets.get(k)!.push(d);
    }
    for (const [k, days] of buckets) {
      if (!perPeriod.has(k)) perPeriod.set(k, []);
      perPeriod.get(k)!.push(reduce(days, m));
    }
  }
  const out: Record<string, Record<string, number>> = {};
  for (const k of [...perPeriod.keys()].sort()) {
    const v = perPeriod.get(k)!;
    out[k] = { min: Math.min(...v), max: Math.max(...v), avg: v.reduce((a, b) => a + b, 0) / v.length };
  }
  return out;
}

const data = async (name: string, qs = '') =>
  (await get(`/api/climate-data/${NYC}/${scenario}/indicator/${name}/?dataset=${dataset}&${qs}`).expect(200)).body.data as Record<string, Record<string, number>>;

describe(`indicator values against a re-implementation, on multi-day data: ${dataset} ${scenario}`, () => {
  it('frost_days per year, month, quarter', async () => {
    const frost = (days: Daily[]) => days.filter((d) => d.tasmin <= 273.15).length;
    for (const agg of ['yearly', 'monthly', 'quarterly']) {
      expectClose(await data('frost_days', `time_aggregation=${agg}`), oracle(PERIODS[agg]!, frost));
    }
  });

  it('average and maximum high temperature in F, C and K', async () => {
    const mean = (days: Daily[]) => days.reduce((a, d) => a + d.tasmax, 0) / days.length;
    const f = oracle(PERIODS.yearly!, (days) => K_TO_F(mean(days)));
    expectClose(await data('average_high_temperature'), f);
    const k = oracle(PERIODS.monthly!, mean);
    expectClose(await data('average_high_temperature', 'units=K&time_aggregation=monthly'), k);
    const max = oracle(PERIODS.quarterly!, (days) => Math.max(...days.map((d) => d.tasmax)) - 273.15);
    expectClose(await data('max_high_temperature', 'units=C&time_aggregation=quarterly'), max);
    const min = oracle(PERIODS.yearly!, (days) => Math.min(...days.map((d) => d.tasmin)));
    expectClose(await data('min_low_temperature', 'units=K'), min);
  });

  it('dry spells and max consecutive dry days, runs cut at period boundaries', async () => {
    const spells = (days: Daily[]) => runs(days.map((d) => d.pr === 0)).filter((n) => n >= 5).length;
    const longest = (days: Daily[]) => Math.max(0, ...runs(days.map((d) => !(d.pr > 0))));
    for (const agg of ['yearly', 'monthly']) {
      expectClose(await data('dry_spells', `time_aggregation=${agg}`), oracle(PERIODS[agg]!, spells));
      expectClose(await data('max_consecutive_dry_days', `time_aggregation=${agg}`), oracle(PERIODS[agg]!, longest));
    }
    // A run crossing Dec 31 counts in each offset year it touches, not per calendar year.
    expectClose(await data('max_consecutive_dry_days', 'time_aggregation=offset_yearly'), oracle(PERIODS.offset_yearly!, longest, { offset: true }));
  });

  it('custom spans: the first listed wins where spans overlap', async () => {
    const spans: [number, number][] = [[601, 831], [101, 1231]];
    const wet = (days: Daily[]) => days.reduce((a, d) => a + d.pr, 0) * 86400 * (1 / 25.4);
    expectClose(await data('total_precipitation', 'time_aggregation=custom&custom_time_agg=6-1:8-31,1-1:12-31'), oracle(customPeriod(spans), wet));
    const mm = (days: Daily[]) => days.reduce((a, d) => a + d.pr, 0) * 86400;
    expectClose(await data('total_precipitation', 'units=mm&time_aggregation=custom&custom_time_agg=12-1:12-31,2-29:2-29'), oracle(customPeriod([[1201, 1231], [229, 229]]), mm));
  });

  it('heat waves against the daily climatology of the historic range', async () => {
    // The suite's historical data covers 1990-1992, inside the default range (1971-2000; 1981-2010 for CMIP6).
    const sums = new Map<number, [number, number]>();
    for (const m of HISTORICAL) {
      for (const d of historical.get(m)!) {
        const s = sums.get(slotOf(d.date)) ?? [0, 0];
        sums.set(slotOf(d.date), [s[0] + d.tasmax, s[1] + 1]);
      }
    }
    const hot = (days: Daily[]) => days.map((d) => d.tasmax > sums.get(slotOf(d.date))![0] / sums.get(slotOf(d.date))![1] + 5);
    expectClose(await data('heat_wave_duration_index'), oracle(PERIODS.yearly!, (days) => Math.max(0, ...runs(hot(days)))));
    expectClose(await data('heat_wave_incidents', 'time_aggregation=quarterly'), oracle(PERIODS.quarterly!, (days) => runs(hot(days)).filter((n) => n >= 5).length));
  });

  it('extreme events against the historic percentile baseline, any percentile', async () => {
    const baseline = (variable: 'tasmax' | 'tasmin' | 'pr', p: number) => {
      const per = HISTORICAL.map((m) => npPercentile(historical.get(m)!.map((d) => d[variable]).filter((v) => variable !== 'pr' || v > 0), p));
      return per.reduce((a, b) => a + b, 0) / per.length;
    };
    const heat = baseline('tasmax', 90);
    expectClose(await data('extreme_heat_events', 'percentile=90'), oracle(PERIODS.yearly!, (days) => days.filter((d) => d.tasmax > heat).length));
    const cold = baseline('tasmin', 7);
    expectClose(await data('extreme_cold_events', 'percentile=7&time_aggregation=monthly'), oracle(PERIODS.monthly!, (days) => days.filter((d) => d.tasmin < cold).length));
    const wet = baseline('pr', 99);
    expectClose(await data('extreme_precipitation_events'), oracle(PERIODS.yearly!, (days) => days.filter((d) => d.pr > wet).length));
  });

  it('degree days, diurnal range and freezing degree days as temperature differences', async () => {
    const base = (65 + 459.67) * (1 / 1.8);
    const t = (d: Daily) => (d.tasmax + d.tasmin) / 2;
    const hdd = (days: Daily[]) => days.reduce((a, d) => a + (t(d) < base ? base - t(d) : 0), 0) * 1.8;
    expectClose(await data('heating_degree_days'), oracle(PERIODS.yearly!, hdd));
    const base20c = (20 + 273.15) * 1.0;
    const cdd = (days: Daily[]) => days.reduce((a, d) => a + (t(d) > base20c ? t(d) - base20c : 0), 0);
    expectClose(await data('cooling_degree_days', 'basetemp=20&basetemp_units=C&units=C&time_aggregation=monthly'), oracle(PERIODS.monthly!, cdd));
    const dtr = (days: Daily[]) => days.reduce((a, d) => a + (d.tasmax - d.tasmin), 0) / days.length;
    expectClose(await data('diurnal_temperature_range', 'units=K'), oracle(PERIODS.yearly!, dtr));
    const afdd = (days: Daily[]) => {
      let total = 0;
      let best = 0;
      for (const d of days) {
        total = Math.max(total + (273.15 - t(d)), 0);
        best = Math.max(best, total);
      }
      return best * 1.8;
    };
    expectClose(await data('accumulated_freezing_degree_days', 'time_aggregation=offset_yearly'), oracle(PERIODS.offset_yearly!, afdd, { offset: true }));
    for (const agg of ['yearly', 'quarterly', 'monthly']) expectClose(await data('accumulated_freezing_degree_days', `time_aggregation=${agg}`), oracle(PERIODS[agg]!, afdd));
  });

  it('thresholds in their units, and percentiles of daily values', async () => {
    const thr = (90 + 459.67) * (1 / 1.8);
    expectClose(
      await data('max_temperature_threshold', 'threshold=90&threshold_comparator=gte&threshold_units=F'),
      oracle(PERIODS.yearly!, (days) => days.filter((d) => d.tasmax >= thr).length),
    );
    const rate = 5 * (1 / 86400);
    expectClose(
      await data('precipitation_threshold', 'threshold=5&threshold_comparator=gt&threshold_units=mm/day&time_aggregation=monthly'),
      oracle(PERIODS.monthly!, (days) => days.filter((d) => d.pr > rate).length),
    );
    expectClose(
      await data('percentile_precipitation', 'percentile=95&units=mm/day'),
      oracle(PERIODS.yearly!, (days) => npPercentile(days.map((d) => d.pr), 95) * 86400),
    );
    expectClose(
      await data('percentile_low_temperature', 'units=K'),
      oracle(PERIODS.yearly!, (days) => npPercentile(days.map((d) => d.tasmin), 50)),
    );
  });

  /**
   * Per period, the largest total of n consecutive days of each model (its consecutive days in the
   * data, in date order) whose last day is in the period and, with `years`, in those years; the
   * days before may be in the period or year before. Then min/max/avg across models.
   */
  function ndayOracle(period: Period, n: number, toUnits: (total: number) => number, opts: { years?: number[]; offset?: boolean } = {}) {
    const perPeriod = new Map<string, number[]>();
    for (const m of MODELS) {
      const days = raw.get(m)!;
      const years = new Set(days.map((d) => d.date.getUTCFullYear()));
      const best = new Map<string, number>();
      for (let i = n - 1; i < days.length; i++) {
        const last = days[i]!.date;
        if (opts.years && !opts.years.includes(last.getUTCFullYear())) continue;
        const k = period(last);
        if (k === undefined) continue;
        if (opts.offset && !(years.has(Number(k.slice(0, 4))) && years.has(Number(k.slice(0, 4)) + 1))) continue;
        let total = 0;
        for (let j = i - n + 1; j <= i; j++) total += days[j]!.pr;
        best.set(k, Math.max(best.get(k) ?? -Infinity, toUnits(total)));
      }
      for (const [k, v] of best) perPeriod.set(k, [...(perPeriod.get(k) ?? []), v]);
    }
    const out: Record<string, Record<string, number>> = {};
    for (const k of [...perPeriod.keys()].sort()) {
      const v = perPeriod.get(k)!;
      out[k] = { min: Math.min(...v), max: Math.max(...v), avg: v.reduce((a, b) => a + b, 0) / v.length };
    }
    return out;
  }
  const inches = (x: number) => x * 86400 * (1 / 25.4);
  const mm = (x: number) => x * 86400;

  it('max_1day_precipitation (Rx1day) in every time aggregation and unit', async () => {
    const rx1 = (to: (x: number) => number) => (days: Daily[]) => to(Math.max(...days.map((d) => d.pr)));
    for (const agg of ['yearly', 'monthly', 'quarterly']) expectClose(await data('max_1day_precipitation', `time_aggregation=${agg}`), oracle(PERIODS[agg]!, rx1(inches)));
    expectClose(await data('max_1day_precipitation', 'units=mm&time_aggregation=offset_yearly'), oracle(PERIODS.offset_yearly!, rx1(mm), { offset: true }));
    expectClose(await data('max_1day_precipitation', 'units=kg/m^2&time_aggregation=custom&custom_time_agg=6-1:8-31,1-1:12-31'), oracle(customPeriod([[601, 831], [101, 1231]]), rx1(mm)));
  });

  it('max_nday_precipitation: the n-day total ending in the period, reaching back into the period before', async () => {
    // Rx5day by default; a total ending on Jan 1-4 of the data's first year has no days before it.
    expectClose(await data('max_nday_precipitation'), ndayOracle(PERIODS.yearly!, 5, inches));
    for (const agg of ['monthly', 'quarterly']) expectClose(await data('max_nday_precipitation', `n=3&units=mm&time_aggregation=${agg}`), ndayOracle(PERIODS[agg]!, 3, mm));
    expectClose(await data('max_nday_precipitation', 'n=10&units=mm&time_aggregation=offset_yearly'), ndayOracle(PERIODS.offset_yearly!, 10, mm, { offset: true }));
    expectClose(await data('max_nday_precipitation', 'n=2&units=mm&time_aggregation=custom&custom_time_agg=1-1:1-3,6-1:8-31'), ndayOracle(customPeriod([[101, 103], [601, 831]]), 2, mm));
    // The first days of a requested year are preceded by the year before, read though not requested.
    expectClose(await data('max_nday_precipitation', `n=7&units=mm&time_aggregation=monthly&years=${year}`), ndayOracle(PERIODS.monthly!, 7, mm, { years: [year] }));
    // Monthly maxima that reach back across month ends differ from maxima cut at them: the test can tell.
    const cut = oracle(PERIODS.monthly!, (days) => {
      let best = -Infinity;
      for (let i = 6; i < days.length; i++) best = Math.max(best, mm(days.slice(i - 6, i + 1).reduce((a, d) => a + d.pr, 0)));
      return best;
    });
    expect(await data('max_nday_precipitation', `n=7&units=mm&time_aggregation=monthly`)).not.toEqual(cut);
  });

  it('statistics across models: median, stddev (population), stdev alias, any NNth', async () => {
    const res = await data('frost_days', 'agg=median,stddev,stdev,5th,95th,avg');
    const perModel = MODELS.map((m) => raw.get(m)!.filter((d) => d.date.getUTCFullYear() === year && d.tasmin <= 273.15).length);
    const mean = perModel.reduce((a, b) => a + b, 0) / MODELS.length;
    expect(Object.keys(res[String(year)]!)).toEqual(['median', 'stddev', 'stdev', '5th', '95th', 'avg']);
    expect(res[String(year)]!.median).toBeCloseTo(npPercentile(perModel, 50), 10);
    expect(res[String(year)]!.stddev).toBeCloseTo(Math.sqrt(perModel.reduce((a, v) => a + (v - mean) ** 2, 0) / MODELS.length), 10);
    expect(res[String(year)]!.stdev).toBe(res[String(year)]!.stddev);
    expect(res[String(year)]!['95th']).toBeCloseTo(npPercentile(perModel, 95), 10);
    expect(res[String(year)]!['5th']).toBeCloseTo(npPercentile(perModel, 5), 10);
  });

  it('filters years and models; offset years are named by their first year', async () => {
    expect(Object.keys(await data('frost_days', `years=${year}`))).toEqual([String(year)]);
    expect(Object.keys(await data('frost_days', `years=${year - 1},${year + 1}`))).toEqual([String(year - 1), String(year + 1)]);
    expect(Object.keys(await data('frost_days', `time_aggregation=offset_yearly&years=${year - 1}`))).toEqual([`${year - 1}-${year}`]);
    const one = await get(`/api/climate-data/${NYC}/${scenario}/indicator/frost_days/?dataset=${dataset}&models=${MODELS[1]}`).expect(200);
    expect(one.body.climate_models).toEqual([MODELS[1]]);
    for (const stats of Object.values(one.body.data) as Record<string, number>[]) expect(stats.min).toBe(stats.max);
  });
});
}

const data = async (name: string, qs = '') =>
  (await get(`/api/climate-data/${NYC}/RCP85/indicator/${name}/?${qs}`).expect(200)).body.data as Record<string, Record<string, number>>;

beforeAll(async () => {
  t = await testApp({ THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' });
});

reimplementationSuite('NEX-GDDP', 'RCP85', MODELS, 2051);
// CMIP6: a gregorian, a 365-day and a 360-day model (no value on 5 or 6 dates a year); LOCA2's
// models with ssp245 in the suite's build (its CESM2-LENS has only ssp370).
reimplementationSuite('NEX-GDDP-CMIP6', 'ssp585', ['ACCESS-CM2', 'CanESM5', 'UKESM1-0-LL'], 2051);
reimplementationSuite('LOCA2', 'ssp245', ['ACCESS-CM2', 'TaiESM1'], 2051, ['ACCESS-CM2', 'CESM2-LENS', 'TaiESM1']);

describe('indicator data response', () => {
  it('has the spec keys, the indicator object, the units used, and works by lat/lon', async () => {
    const res = await get(`/api/climate-data/${NYC}/RCP85/indicator/total_precipitation/?units=mm`).expect(200);
    expect(Object.keys(res.body)).toEqual(['city', 'dataset', 'scenario', 'indicator', 'climate_models', 'time_aggregation', 'units', 'data']);
    expect(res.body.indicator.name).toBe('total_precipitation');
    expect(res.body.units).toBe('mm');
    expect(res.body.time_aggregation).toBe('yearly');
    const nyc = t.catalog.cityById.get(NYC)!;
    const byPoint = await get(`/api/climate-data/${nyc.lat}/${nyc.lon}/RCP85/indicator/total_precipitation/?units=mm`).expect(200);
    expect(Object.keys(byPoint.body)[0]).toBe('feature');
    expect(byPoint.body.data).toEqual(res.body.data);
  });

  it('answers {} where the cell has no data for the scenario years', async () => {
    expect(await data('frost_days', 'years=1990')).toEqual({});
  });
});

describe('indicator validation', () => {
  const bad: [string, string, RegExp][] = [
    ['frost_days', 'agg=foo', /^agg accepts .*got 'foo'/],
    ['frost_days', 'agg=100th', /^agg accepts/],
    ['frost_days', 'agg=0th', /^agg accepts/],
    ['frost_days', 'time_aggregation=weekly', /^time_aggregation must be one of yearly, quarterly, monthly, offset_yearly, custom, decadal, window; got 'weekly'/],
    ['frost_days', 'time_aggregation=custom', /^custom_time_agg is required when time_aggregation is custom/],
    ['frost_days', 'custom_time_agg=1-1:2-1', /^If custom_time_agg is provided, param time_aggregation must equal "custom"/],
    ['frost_days', 'time_aggregation=custom&custom_time_agg=1-1', /^custom_time_agg: each span needs exactly a start and an end/],
    ['frost_days', 'time_aggregation=custom&custom_time_agg=1-1:2-30', /^custom_time_agg: '1-1:2-30' must be a valid date range/],
    ['frost_days', 'time_aggregation=custom&custom_time_agg=aa-1:2-1', /valid date range/],
    ['frost_days', 'time_aggregation=custom&custom_time_agg=3-1:2-1', /the start must not be after the end/],
    ['frost_days', 'units=F', /^units must be one of days for frost_days; got 'F'/],
    ['average_high_temperature', 'units=R', /^units must be one of F, C, K for average_high_temperature/],
    ['total_precipitation', 'units=cm', /^units must be one of kg\/m\^2, mm, in/],
    ['max_temperature_threshold', '', /^threshold is required/],
    ['max_temperature_threshold', 'threshold=abc&threshold_comparator=gt&threshold_units=F', /^threshold must be a number; got 'abc'/],
    ['max_temperature_threshold', 'threshold=1&threshold_comparator=eq&threshold_units=F', /^threshold_comparator is required and must be one of lt, lte, gt, gte; got 'eq'/],
    ['max_temperature_threshold', 'threshold=1&threshold_comparator=gt&threshold_units=mm/day', /^threshold_units is required and must be one of F, C, K/],
    ['precipitation_threshold', 'threshold=1&threshold_comparator=gt&threshold_units=F', /^threshold_units .*kg\/m\^2\/s, mm\/day, in\/day/],
    ['percentile_high_temperature', 'percentile=0', /^percentile must be an integer from 1 to 99/],
    ['extreme_heat_events', 'percentile=100', /^percentile must be an integer from 1 to 99/],
    ['extreme_heat_events', 'percentile=5.5', /^percentile must be an integer/],
    ['heat_wave_incidents', 'historic_range=2010', /^historic_range must be the start year of one of the historic ranges: 1951, 1961, 1971; got '2010'/],
    ['heating_degree_days', 'basetemp=warm', /^basetemp must be a number/],
    ['heating_degree_days', 'basetemp_units=R', /^basetemp_units must be one of F, C, K/],
    ['max_nday_precipitation', 'n=1', /^n must be an integer from 2 to 10; got '1'/],
    ['max_nday_precipitation', 'n=11', /^n must be an integer from 2 to 10; got '11'/],
    ['max_nday_precipitation', 'n=5.5', /^n must be an integer from 2 to 10/],
    ['max_1day_precipitation', 'units=in/day', /^units must be one of kg\/m\^2, mm, in for max_1day_precipitation/],
    ['frost_days', 'years=20x0', /^years accepts/],
    ['frost_days', 'models=FOO', /^Dataset NEX-GDDP has no data for model\(s\): FOO/],
    ['frost_days', 'dataset=FOO', /^Dataset FOO does not exist/],
  ];
  it('answers 400 naming the parameter and the accepted values', async () => {
    for (const [name, qs, re] of bad) {
      const res = await get(`/api/climate-data/${NYC}/RCP85/indicator/${name}/?${qs}`);
      expect(res.status, `${name}?${qs}`).toBe(400);
      expect(res.body.detail, `${name}?${qs}`).toMatch(re);
    }
  });

  it('answers 404 for unknown indicator, scenario, city and a point without data', async () => {
    expect((await get(`/api/climate-data/${NYC}/RCP85/indicator/nope/`).expect(404)).body).toEqual({ detail: 'Indicator nope does not exist.' });
    expect((await get(`/api/climate-data/${NYC}/RCP00/indicator/frost_days/`).expect(404)).body).toEqual({ detail: 'Scenario RCP00 does not exist.' });
    expect((await get('/api/climate-data/1/RCP85/indicator/frost_days/').expect(404)).body).toEqual({ detail: 'City 1 does not exist.' });
    expect((await get('/api/climate-data/10/10/RCP85/indicator/frost_days/').expect(404)).body.detail).toBe('No NEX-GDDP data available for point (10, 10)');
    expect((await get('/api/climate-data/10/200/RCP85/indicator/frost_days/').expect(400)).body.detail).toMatch(/^lon must be a number between -180 and 180/);
  });
});

describe('GET /api/indicator/', () => {
  it("lists the original's 23 indicators in its order, and this service's six", async () => {
    const res = await get('/api/indicator/').expect(200);
    expect(res.body).toHaveLength(29);
    expect(res.body.map((i: { name: string }) => i.name).filter((n: string) => n.startsWith('max_'))).toEqual([
      'max_1day_precipitation', 'max_consecutive_dry_days', 'max_high_temperature', 'max_nday_precipitation', 'max_temperature_threshold',
      'max_wet_bulb_temperature', 'max_heat_index',
    ]);
    expect(res.body.slice(-4).map((i: { name: string }) => i.name)).toEqual(['max_wet_bulb_temperature', 'wet_bulb_temperature_threshold', 'max_heat_index', 'heat_index_threshold']);
    expect(res.body[0].name).toBe('accumulated_freezing_degree_days');
    expect(res.body.map((i: { name: string }) => i.name)).toContain('heat_wave_incidents');
    for (const i of res.body) {
      // The humid-heat indicators, computed by a formula from several variables, name it and its source.
      const formula = i.formula === undefined ? [] : ['formula', 'source'];
      expect(Object.keys(i)).toEqual(['name', 'label', 'description', 'valid_aggregations', 'variables', ...formula, 'available_units', 'default_units', 'parameters']);
      expect(i.available_units).toContain(i.default_units);
    }
  });

  it('shows one indicator as the original to_dict (Appendix A), or 404', async () => {
    const res = await get('/api/indicator/max_temperature_threshold/').expect(200);
    expect(res.body.label).toBe('Max Temperature Threshold');
    expect(res.body.valid_aggregations).toEqual(['yearly', 'quarterly', 'monthly', 'offset_yearly', 'custom', 'decadal', 'window']);
    expect(res.body.variables).toEqual(['tasmax']);
    expect(res.body.available_units).toEqual(['days']);
    expect(res.body.parameters.map((p: { name: string }) => p.name)).toEqual([
      'agg', 'change', 'custom_time_agg', 'dataset', 'models', 'pool_scenarios', 'relative_to', 'threshold', 'threshold_comparator', 'threshold_units', 'time_aggregation', 'units', 'warming_level', 'windows', 'years',
    ]);
    expect(res.body.parameters.find((p: { name: string }) => p.name === 'threshold')).not.toHaveProperty('default');
    expect(res.body.parameters.find((p: { name: string }) => p.name === 'units').default).toBe('days');
    const hw = (await get('/api/indicator/heat_wave_incidents/').expect(200)).body;
    expect(hw.parameters.find((p: { name: string }) => p.name === 'historic_range').default).toBe('1971');
    expect((await get('/api/indicator/yearly_dry_spells/').expect(200)).body.name).toBe('dry_spells');
    expect((await get('/api/indicator/nope/').expect(404)).body).toEqual({ detail: 'Indicator nope does not exist.' });
  });
});

describe('GET /api/indicator/ for the n-day precipitation indicators', () => {
  it('lists n (2 to 10, default 5) on max_nday_precipitation, amounts in kg/m^2, mm or in', async () => {
    const nday = (await get('/api/indicator/max_nday_precipitation/').expect(200)).body;
    expect(nday.variables).toEqual(['pr']);
    expect(nday.available_units).toEqual(['kg/m^2', 'mm', 'in']);
    expect(nday.default_units).toBe('in');
    expect(nday.parameters.find((p: { name: string }) => p.name === 'n')).toMatchObject({ required: false, default: 5 });
    expect(nday.parameters.find((p: { name: string }) => p.name === 'n').description).toMatch(/from 2 to 10/);
    const one = (await get('/api/indicator/max_1day_precipitation/').expect(200)).body;
    expect(one.label).toBe('Maximum 1-Day Precipitation');
    expect(one.parameters.map((p: { name: string }) => p.name)).not.toContain('n');
  });
});

describe('whole-month periods from the monthly summaries', () => {
  // Yearly, quarterly and monthly periods of these indicators are read from the monthly summaries;
  // custom spans read the days. The same periods asked both ways must give the same numbers.
  const SUMMARISED = [
    'frost_days', 'max_high_temperature', 'min_low_temperature', 'average_high_temperature', 'average_low_temperature', 'diurnal_temperature_range',
    'total_precipitation', 'max_1day_precipitation', 'max_nday_precipitation', 'cooling_degree_days', 'heating_degree_days', 'dry_spells', 'max_consecutive_dry_days', 'heat_wave_incidents', 'heat_wave_duration_index',
    'accumulated_freezing_degree_days', 'extreme_heat_events', 'extreme_cold_events', 'extreme_precipitation_events',
  ];
  const QUARTERS = '1-1:3-31,4-1:6-30,7-1:9-30,10-1:12-31';
  const MONTHS = Array.from({ length: 12 }, (_, i) => `${i + 1}-1:${i + 1}-${new Date(Date.UTC(2001, i + 1, 0)).getUTCDate() + (i === 1 ? 1 : 0)}`).join(',');
  const rekey = (data: Record<string, unknown>, key: (year: string, n: number) => string) =>
    Object.fromEntries(Object.entries(data).map(([k, v]) => [key(k.slice(0, 4), Number(k.slice(5))), v]));
  const agg = 'agg=min,max,avg,median,stddev,10th,90th';

  it.each(SUMMARISED)('%s: yearly, quarterly and monthly equal the same spans read from the days', async (name) => {
    const yearly = await data(name, `${agg}&time_aggregation=yearly`);
    expect(Object.keys(yearly)).toEqual(['2050', '2051', '2052']);
    expect(rekey(await data(name, `${agg}&time_aggregation=custom&custom_time_agg=1-1:12-31`), (y) => y)).toEqual(yearly);
    const quarterly = await data(name, `${agg}&time_aggregation=quarterly`);
    expect(rekey(await data(name, `${agg}&time_aggregation=custom&custom_time_agg=${QUARTERS}`), (y, n) => `${y}-Q${n}`)).toEqual(quarterly);
    const monthly = await data(name, `${agg}&time_aggregation=monthly`);
    expect(Object.keys(monthly)).toHaveLength(36);
    expect(rekey(await data(name, `${agg}&time_aggregation=custom&custom_time_agg=${MONTHS}`), (y, n) => `${y}-${String(n).padStart(2, '0')}`)).toEqual(monthly);
  });

  it.each([
    ['max_temperature_threshold', 'threshold=90&threshold_comparator=gt&threshold_units=F'],
    ['max_temperature_threshold', 'threshold=35&threshold_comparator=gte&threshold_units=C'],
    ['min_temperature_threshold', 'threshold=32&threshold_comparator=lte&threshold_units=F'],
    ['precipitation_threshold', 'threshold=1&threshold_comparator=gt&threshold_units=mm/day'],
  ])('%s %s: whole months (filtered days, the periods from the summaries) equal the days counted with FILTER', async (name, params) => {
    const qs = `${agg}&${params}`;
    const yearly = await data(name, `${qs}&time_aggregation=yearly`);
    expect(Object.keys(yearly)).toEqual(['2050', '2051', '2052']);
    expect(rekey(await data(name, `${qs}&time_aggregation=custom&custom_time_agg=1-1:12-31`), (y) => y)).toEqual(yearly);
    const monthly = await data(name, `${qs}&time_aggregation=monthly`);
    // Every month is there, those with no such day too (a count of 0 for every model: the
    // temperature thresholds' winter or summer months; every month has a wet day).
    expect(Object.keys(monthly)).toHaveLength(36);
    if (name !== 'precipitation_threshold') expect(Object.values(monthly).some((stats) => stats.max === 0)).toBe(true);
    expect(rekey(await data(name, `${qs}&time_aggregation=custom&custom_time_agg=${MONTHS}`), (y, n) => `${y}-${String(n).padStart(2, '0')}`)).toEqual(monthly);
    const quarterly = await data(name, `${qs}&time_aggregation=quarterly`);
    expect(rekey(await data(name, `${qs}&time_aggregation=custom&custom_time_agg=${QUARTERS}`), (y, n) => `${y}-Q${n}`)).toEqual(quarterly);
  });

  it.each([2, 3, 10])('max_nday_precipitation n=%i: whole months from the summaries equal the days, runs reaching into the year before', async (n) => {
    for (const years of ['', '&years=2051:2052', '&years=2052']) {
      const qs = `${agg}&n=${n}${years}`;
      const yearly = await data('max_nday_precipitation', `${qs}&time_aggregation=yearly`);
      expect(Object.keys(yearly).length).toBeGreaterThan(0);
      expect(rekey(await data('max_nday_precipitation', `${qs}&time_aggregation=custom&custom_time_agg=1-1:12-31`), (y) => y)).toEqual(yearly);
      const monthly = await data('max_nday_precipitation', `${qs}&time_aggregation=monthly`);
      expect(rekey(await data('max_nday_precipitation', `${qs}&time_aggregation=custom&custom_time_agg=${MONTHS}`), (y, m) => `${y}-${String(m).padStart(2, '0')}`)).toEqual(monthly);
    }
  });

  it.each(['cooling_degree_days', 'heating_degree_days'])('%s at a base the summaries do not hold reads the days, whole months too', async (name) => {
    expect(SUMMARISED_BASETEMP).toBe(temperatureToK(65, 'F'));
    for (const base of ['basetemp=70', 'basetemp=18&basetemp_units=C']) {
      const yearly = await data(name, `${agg}&time_aggregation=yearly&${base}`);
      expect(yearly).not.toEqual(await data(name, `${agg}&time_aggregation=yearly`));
      expect(rekey(await data(name, `${agg}&time_aggregation=custom&custom_time_agg=1-1:12-31&${base}`), (y) => y)).toEqual(yearly);
      const monthly = await data(name, `${agg}&time_aggregation=monthly&${base}`);
      expect(rekey(await data(name, `${agg}&time_aggregation=custom&custom_time_agg=${MONTHS}&${base}`), (y, n) => `${y}-${String(n).padStart(2, '0')}`)).toEqual(monthly);
    }
    // The default base written out is the summaries' base.
    expect(await data(name, `${agg}&time_aggregation=yearly&basetemp=65&basetemp_units=F`)).toEqual(await data(name, `${agg}&time_aggregation=yearly`));
  });

  it.each(['percentile_high_temperature', 'percentile_low_temperature', 'percentile_precipitation'])(
    '%s: years at the default percentile from the summaries equal the days; other percentiles and periods read the days',
    async (name) => {
      for (const years of ['', '&years=2051:2052', '&years=2052']) {
        const yearly = await data(name, `${agg}&time_aggregation=yearly${years}`);
        expect(Object.keys(yearly).length).toBeGreaterThan(0);
        expect(rekey(await data(name, `${agg}&time_aggregation=custom&custom_time_agg=1-1:12-31${years}`), (y) => y)).toEqual(yearly);
        expect(await data(name, `${agg}&time_aggregation=yearly&percentile=50${years}`)).toEqual(yearly);
      }
      const ninetieth = await data(name, `${agg}&time_aggregation=yearly&percentile=90`);
      expect(ninetieth).not.toEqual(await data(name, `${agg}&time_aggregation=yearly`));
      expect(rekey(await data(name, `${agg}&time_aggregation=custom&custom_time_agg=1-1:12-31&percentile=90`), (y) => y)).toEqual(ninetieth);
      const monthly = await data(name, `${agg}&time_aggregation=monthly`);
      expect(rekey(await data(name, `${agg}&time_aggregation=custom&custom_time_agg=${MONTHS}`), (y, n) => `${y}-${String(n).padStart(2, '0')}`)).toEqual(monthly);
      // Only years at the summaries' percentile are read from the summaries alone.
      expect(fromMonths({ name, timeAggregation: 'yearly', percentile: SUMMARISED_PERCENTILE })).toBe(true);
      expect(fromMonths({ name, timeAggregation: 'yearly', percentile: 90 })).toBe(false);
      expect(fromMonths({ name, timeAggregation: 'quarterly', percentile: SUMMARISED_PERCENTILE })).toBe(false);
    },
  );

  it.each(['extreme_heat_events', 'extreme_cold_events', 'extreme_precipitation_events'])(
    '%s: whole months of every historic range from the summaries equal the days; another percentile reads the days',
    async (name) => {
      for (const range of ['historic_range=1951', 'historic_range=1961', 'historic_range=1971']) {
        const yearly = await data(name, `${agg}&time_aggregation=yearly&${range}`);
        expect(rekey(await data(name, `${agg}&time_aggregation=custom&custom_time_agg=1-1:12-31&${range}`), (y) => y)).toEqual(yearly);
        const monthly = await data(name, `${agg}&time_aggregation=monthly&${range}`);
        expect(rekey(await data(name, `${agg}&time_aggregation=custom&custom_time_agg=${MONTHS}&${range}`), (y, n) => `${y}-${String(n).padStart(2, '0')}`)).toEqual(monthly);
      }
      const other = name === 'extreme_cold_events' ? 5 : 95;
      const yearly = await data(name, `${agg}&time_aggregation=yearly&percentile=${other}`);
      expect(yearly).not.toEqual(await data(name, `${agg}&time_aggregation=yearly`));
      expect(rekey(await data(name, `${agg}&time_aggregation=custom&custom_time_agg=1-1:12-31&percentile=${other}`), (y) => y)).toEqual(yearly);
      const held = name === 'extreme_cold_events' ? 1 : 99;
      expect(fromMonths({ name, timeAggregation: 'quarterly', percentile: held })).toBe(true);
      expect(fromMonths({ name, timeAggregation: 'yearly', percentile: other })).toBe(false);
    },
  );

  it('the server sets the variables a template reads through its macros', () => {
    // month_cutting_days names the days' variables in its query() text; leaving them unset would
    // read another request's cell.
    const frost = variablesOf(sqlFile('indicators/frost_days.sql'));
    for (const name of ['file', 'monthly_file', 'models', 'years', 'time_aggregation', 'spans', 'aggs']) expect(frost).toContain(name);
    expect(frost).not.toContain('threshold');
    expect(variablesOf(sqlFile('indicators/total_precipitation.sql'))).not.toContain('historic_file');
    // A whole-month request's statement reads the monthly summaries alone: no day file to set.
    const wholeFrost = servedStatement('frost_days', 'period_values', true);
    expect(wholeFrost).toMatch(/\bwhole_months_per_model\(/);
    expect(wholeFrost).not.toMatch(/(?<!whole_)months_per_model\(/);
    for (const name of ['monthly_file', 'models', 'years', 'time_aggregation']) expect(variablesOf(wholeFrost)).toContain(name);
    expect(variablesOf(wholeFrost)).not.toContain('file');
    expect(variablesOf(wholeFrost)).not.toContain('spans');
    const wholeHeat = servedStatement('heat_wave_incidents', 'period_values', true);
    expect(wholeHeat).toMatch(/\bwhole_month_spells_per_model\(/);
    expect(variablesOf(wholeHeat)).toContain('historic_start');
    expect(variablesOf(wholeHeat)).not.toContain('historic_file');
    // A whole-month threshold count binds no FILTER branch for offset years and custom spans.
    const wholeThreshold = servedStatement('max_temperature_threshold', 'period_values', true);
    expect(wholeThreshold).toMatch(/\bwhole_month_count_days_per_model\(/);
    expect(wholeThreshold).not.toMatch(/(?<!whole_month_)count_days_per_model\(/);
    expect(servedStatement('max_temperature_threshold', 'period_values', false)).toMatch(/(?<!whole_month_)count_days_per_model\(/);
  });

  it('one connection serving requests in any order gives each the same answer (no session variable left over)', async () => {
    // Every request on one pooled connection, so each sees the variables the one before it set.
    const one = await testApp({ QUERY_CONCURRENCY: '1', THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' });
    const LA = 5368361;
    const CHICAGO = 4887398;
    const asks = [
      `${NYC}/RCP85/indicator/frost_days/?time_aggregation=custom&custom_time_agg=1-1:2-15`,
      `${LA}/RCP85/indicator/frost_days/?time_aggregation=yearly`,
      `${LA}/RCP85/indicator/frost_days/?time_aggregation=custom&custom_time_agg=12-1:12-31&models=MIROC5,CCSM4`,
      `${CHICAGO}/RCP85/indicator/max_consecutive_dry_days/?time_aggregation=offset_yearly&agg=max,90th`,
      `${NYC}/RCP85/indicator/max_temperature_threshold/?threshold=80&threshold_units=F&threshold_comparator=gt`,
      `${NYC}/RCP85/indicator/max_high_temperature/?time_aggregation=custom&custom_time_agg=7-1:7-31&units=C`,
      `${LA}/RCP85/indicator/max_temperature_threshold/?threshold=20&threshold_units=C&threshold_comparator=lte&time_aggregation=quarterly`,
      `${CHICAGO}/RCP85/indicator/heat_wave_incidents/?historic_range=1961&time_aggregation=custom&custom_time_agg=6-1:8-31`,
      `${NYC}/RCP85/indicator/heat_wave_incidents/?historic_range=1971&time_aggregation=monthly&years=2051`,
      `${CHICAGO}/RCP85/indicator/percentile_high_temperature/?percentile=5&years=2050:2051`,
    ];
    const answers = async (order: string[]) => {
      const out = new Map<string, unknown>();
      for (const a of order) {
        const res = await request(one.app).get(`/api/climate-data/${a}`).set('Authorization', `Token ${one.token}`);
        expect(res.status, `${a}: ${JSON.stringify(res.body)}`).toBe(200);
        out.set(a, res.body.data);
      }
      return out;
    };
    const forward = await answers(asks);
    const backward = await answers([...asks].reverse());
    const twice = await answers([...asks, ...asks].sort());
    for (const a of asks) {
      expect(Object.keys(forward.get(a) as object).length, a).toBeGreaterThan(0);
      expect(backward.get(a), a).toEqual(forward.get(a));
      expect(twice.get(a), a).toEqual(forward.get(a));
    }
    // And the same as the suite's own app, whose connections saw other requests.
    expect((await get(`/api/climate-data/${asks[2]}`).expect(200)).body.data).toEqual(forward.get(asks[2]!));
  });

  it('join_runs of the stretches\' run summaries equals run_summary of all their days, for any split', async () => {
    // Random flag lists cut into stretches, some empty and some all true (a whole dry month), as
    // period_runs joins months. Deterministic pseudo-random numbers, so a failure repeats.
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const cases = Array.from({ length: 300 }, () => {
      const stretches = Array.from({ length: 1 + Math.floor(random() * 6) }, () => {
        const kind = random();
        const len = Math.floor(random() * 12);
        return Array.from({ length: kind < 0.15 ? 0 : len }, () => kind < 0.35 || random() < 0.6);
      });
      return stretches;
    });
    const rows = await t.queries.run(async (conn) =>
      (
        await conn.runAndReadAll(
          `SELECT to_json(run_summary(flatten(c))) = to_json(list_reduce(list_transform(c, s -> run_summary(s)), (a, b) -> join_runs(a, b))) AS same,
                  to_json(run_summary(flatten(c))) AS want
           FROM (SELECT unnest($cases::BOOLEAN[][][]) AS c)`,
          { cases: JSON.stringify(cases) } as never,
        )
      ).getRowObjectsJS(),
    );
    expect(rows).toHaveLength(300);
    expect(rows.filter((r) => !r.same)).toEqual([]);
    // The cases have whole-true stretches joining runs, and runs of 5 or more.
    expect(rows.some((r) => JSON.parse(r.want as string).runs5 > 1)).toBe(true);
  });

  it('the suite data has dry runs that cross month boundaries, so the joins of month ends are exercised', async () => {
    // For one model, a quarter whose longest dry run exceeds the longest of each of its months
    // holds a run that crosses a month boundary.
    const monthly = await data('max_consecutive_dry_days', 'models=MIROC5&agg=max&time_aggregation=monthly');
    const quarterly = await data('max_consecutive_dry_days', 'models=MIROC5&agg=max&time_aggregation=quarterly');
    const crossing = Object.entries(quarterly).filter(([q, s]) => {
      const [year, n] = [q.slice(0, 4), Number(q.slice(6))];
      const months = [1, 2, 3].map((i) => monthly[`${year}-${String((n - 1) * 3 + i).padStart(2, '0')}`]!.max!);
      return s.max! > Math.max(...months);
    });
    expect(crossing.length).toBeGreaterThan(0);
  });
});

