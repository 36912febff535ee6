import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from './helpers.js';

/**
 * The original web client (climate-change-lab on climate-change-components 0.4.0) replayed: the
 * catalogue requests it sends, then each threshold-and-percentile chart with the parameters it
 * picks. Its historic-range and percentile-historic controls read /api/historic-range/ without a
 * filter and, with no range chosen yet, ask with the greatest start_year of that list; the chart
 * asks with `dataset` set to the dataset toggle's choice (NEX-GDDP by default, LOCA when the city
 * has it), `time_aggregation` and `units`, and leaves `models` out while all models are chosen.
 */

let t: TestApp;

/** The five charts the client draws with a historic baseline, and the percentile each asks with (its defaults: 1 for cold, 99 otherwise). */
const HISTORIC_CHARTS: Record<string, number | undefined> = {
  extreme_cold_events: 1,
  extreme_heat_events: 99,
  extreme_precipitation_events: 99,
  heat_wave_duration_index: undefined,
  heat_wave_incidents: undefined,
};

interface Indicator {
  name: string;
  valid_aggregations: string[];
  default_units: string;
  parameters: { name: string; default?: string | number }[];
}

/** The client's session: it signs in, then sends its token with every request. */
async function signIn(): Promise<(url: string) => request.Test> {
  const res = await request(t.app).post('/api-token-auth/').set('Content-Type', 'application/json').send(JSON.stringify({ email: 'tester@example.com', password: 'test-password' }));
  expect(res.status).toBe(200);
  const token = res.body.token as string;
  return (url: string) => request(t.app).get(url).set('Authorization', `Token ${token}`);
}

/** What the catalogue calls give the client, and the historic range it picks from them. */
async function catalogue(get: (url: string) => request.Test) {
  const [indicators, scenarios, models, datasets, ranges, cities] = await Promise.all(
    ['/api/indicator/', '/api/scenario/', '/api/climate-model/', '/api/dataset/', '/api/historic-range/', '/api/city/?search=New York'].map(async (url) => {
      const res = await get(url);
      expect(res.status, url).toBe(200);
      return res.body;
    }),
  );
  const city = cities.features.find((f: { properties: { name: string } }) => f.properties.name === 'New York City');
  expect(city).toBeDefined();
  return {
    indicators: indicators as Indicator[],
    scenarios: (scenarios as { name: string }[]).map((s) => s.name),
    models: (models as { name: string }[]).map((m) => m.name),
    datasets: datasets as { name: string; models: string[] }[],
    ranges: ranges as { start_year: number | string; end_year: number }[],
    city: city as { id: number; properties: { datasets: string[] } },
    // The client's own rule: the latest start year of the list, parsed as it does.
    latest: Math.max(...(ranges as { start_year: number | string }[]).map((r) => parseInt(String(r.start_year), 10))),
  };
}

/** The chart request the client sends for an indicator, as its IndicatorService builds the query. */
function chartUrl(cityId: number, scenario: string, indicator: Indicator, dataset: string, historicRange: number): string {
  const q = new URLSearchParams({ historic_range: String(historicRange) });
  const percentile = HISTORIC_CHARTS[indicator.name];
  if (percentile !== undefined) q.set('percentile', String(percentile));
  q.set('time_aggregation', 'yearly');
  q.set('units', indicator.default_units);
  q.set('dataset', dataset);
  return `/api/climate-data/${cityId}/${scenario}/indicator/${indicator.name}/?${q}`;
}

beforeAll(async () => {
  t = await testApp({ THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' });
});

describe('the original web client (climate-change-lab, climate-change-components 0.4.0)', () => {
  it('draws every historic chart on NEX-GDDP and LOCA with the range it picks from /api/historic-range/', async () => {
    const get = await signIn();
    const c = await catalogue(get);
    expect(c.scenarios).toEqual(expect.arrayContaining(['RCP45', 'RCP85', 'historical']));

    for (const dataset of ['NEX-GDDP', 'LOCA']) {
      // The dataset toggle offers what the city has; the model list enables the dataset's models.
      expect(c.city.properties.datasets).toContain(dataset);
      const own = c.datasets.find((d) => d.name === dataset)!;
      expect(own.models.every((m) => c.models.includes(m))).toBe(true);
      for (const name of Object.keys(HISTORIC_CHARTS)) {
        const indicator = c.indicators.find((i) => i.name === name)!;
        expect(indicator.valid_aggregations).toContain('yearly');
        for (const scenario of ['RCP45', 'RCP85']) {
          const url = chartUrl(c.city.id, scenario, indicator, dataset, c.latest);
          const res = await get(url);
          expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(200);
          expect(Object.keys(res.body.data), url).toEqual(['2050', '2051', '2052']);
          // What it picked is what the API would have used without historic_range.
          expect(res.body.indicator.parameters.find((p: { name: string }) => p.name === 'historic_range').default, url).toBe(String(c.latest));
        }
      }
    }
    // The list it reads holds the CMIP5 ranges only, so its pick is the one the CMIP5 datasets default to.
    expect(c.ranges.map((r) => [r.start_year, r.end_year])).toEqual([[1951, 1980], [1961, 1990], [1971, 2000]]);
    expect(c.latest).toBe(1971);
  });

  it('answers the pick as the default range: the same numbers with historic_range left out', async () => {
    const get = await signIn();
    const c = await catalogue(get);
    const indicator = c.indicators.find((i) => i.name === 'extreme_heat_events')!;
    const picked = (await get(chartUrl(c.city.id, 'RCP85', indicator, 'LOCA', c.latest)).expect(200)).body;
    const byDefault = (await get(`/api/climate-data/${c.city.id}/RCP85/indicator/extreme_heat_events/?percentile=99&dataset=LOCA`).expect(200)).body;
    expect(picked.data).toEqual(byDefault.data);
  });
});

describe('a client that knows the CMIP6 datasets', () => {
  it('finds 1981-2010 with ?dataset= and draws every historic chart with it', async () => {
    const get = await signIn();
    const c = await catalogue(get);
    for (const [dataset, scenario] of [['NEX-GDDP-CMIP6', 'ssp585'], ['LOCA2', 'ssp245']] as const) {
      const ranges = (await get(`/api/historic-range/?dataset=${dataset}`).expect(200)).body as { start_year: number; end_year: number; datasets: string[] }[];
      expect(ranges.map((r) => [r.start_year, r.end_year])).toEqual([[1951, 1980], [1961, 1990], [1971, 2000], [1981, 2010]]);
      expect(ranges.every((r) => r.datasets.includes(dataset))).toBe(true);
      const latest = Math.max(...ranges.map((r) => r.start_year));
      expect(latest).toBe(1981);
      for (const name of Object.keys(HISTORIC_CHARTS)) {
        const url = chartUrl(c.city.id, scenario, c.indicators.find((i) => i.name === name)!, dataset, latest);
        const res = await get(url);
        expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(200);
        expect(Object.keys(res.body.data), url).toEqual(['2050', '2051', '2052']);
      }
    }
  });

  it("lists the CMIP5 datasets' ranges with ?dataset= too, and the unfiltered list as NEX-GDDP's", async () => {
    const get = await signIn();
    const unfiltered = (await get('/api/historic-range/').expect(200)).body;
    expect((await get('/api/historic-range/?dataset=NEX-GDDP').expect(200)).body).toEqual(unfiltered);
    expect((await get('/api/historic-range/?dataset=LOCA').expect(200)).body).toEqual(unfiltered);
    // Each range still names every dataset that has it, the CMIP6 ones among them.
    expect(unfiltered.at(-1)).toEqual({ start_year: 1971, end_year: 2000, datasets: ['NEX-GDDP', 'LOCA', 'NEX-GDDP-CMIP6', 'LOCA2'] });
  });
});
