/**
 * Maps (GET /api/climate-data/map/...): the whole map of each dataset of the build, at the
 * indicators' default parameters (frost_days and average_high_temperature from the monthly
 * summaries, max_heat_index from the days, all three from the map files where the build has them), over 30 years (or the years the build has), three
 * statistics (the default 10th,median,90th); on NEX-GDDP also with relative_to and at a warming
 * level. One client, compressed as clients ask; every path distinct (each round another window),
 * so that no response cache could serve a repeat (at the warming level, each round another top percentile). Medians of the per-request times, body read to
 * its end. Run alone: BENCH_ONLY=maps: make bench (or with DATA_DIR= another build, e.g. one of
 * make bench-catalog's region builds with BENCH_MAP_SCENARIO=ssp245). Then mapExactness (below) checks a
 * sample of cells of every indicator against the indicator endpoint.
 */
import http from 'node:http';
import { INDICATORS } from '../src/indicators/metadata.js';
import { datasetRanges, latestRange, scenarioYears } from '../src/reference/datasetContents.js';
import type { Catalog } from '../src/reference/catalog.js';
import { datasetVariables } from '../src/reference/datasetVariables.js';

const ACCEPT_ENCODING = 'gzip, deflate, br';
export const MAP_BENCH = 'maps: the whole map of each dataset, default parameters, 30 years, 10th,median,90th';

export interface MapRow {
  dataset: string;
  cells: number;
  request: string;
  ms: number[];
  bytes: number;
}

function getJson(url: string, token: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { authorization: `Token ${token}` } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

function get(url: string, token: string): Promise<{ ms: number; bytes: number; status: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(url, { headers: { authorization: `Token ${token}`, 'accept-encoding': ACCEPT_ENCODING } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ ms: performance.now() - t0, bytes, status: res.statusCode ?? 0 }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The requests of one dataset: a name and the query for round r (a window of other years each round). */
function requestsOf(catalog: Catalog, dataset: string): { scenario: string; name: string; indicator: string; query: (r: number) => string }[] {
  const d = catalog.datasetByName.get(dataset)!;
  // The highest-emission scenario (the last listed), whose models reach the most levels; or
  // BENCH_MAP_SCENARIO (a region build of make bench-catalog's has ssp245 only).
  const wanted = process.env.BENCH_MAP_SCENARIO;
  const futures = d.scenarios.filter((s) => s.name !== 'historical' && catalog.scenarioByName.has(s.name));
  const future = wanted ? futures.find((s) => s.name === wanted) : futures.at(-1);
  if (!future) return [];
  const scenario = catalog.scenarioByName.get(future.name)!;
  const [first, last] = scenarioYears(catalog, d, scenario);
  const span = Math.min(30, last - first + 1);
  // Round r's window ends r years before the scenario's end (wrapping within its years).
  const years = (r: number) => {
    const end = last - (r % Math.max(1, last - first - span + 2));
    return `${end - span + 1}:${end}`;
  };
  const out = [
    { scenario: future.name, name: 'frost_days, years', indicator: 'frost_days', query: (r: number) => `years=${years(r)}&dataset=${dataset}` },
    { scenario: future.name, name: 'average_high_temperature, years', indicator: 'average_high_temperature', query: (r: number) => `years=${years(r)}&dataset=${dataset}` },
  ];
  if (datasetVariables(dataset).includes('huss')) out.push({ scenario: future.name, name: 'max_heat_index, years', indicator: 'max_heat_index', query: (r: number) => `years=${years(r)}&dataset=${dataset}` });
  const range = latestRange(datasetRanges(catalog, d));
  if (range) out.push({ scenario: future.name, name: `frost_days, years, relative_to=${range.start_year}`, indicator: 'frost_days', query: (r: number) => `years=${years(r)}&dataset=${dataset}&relative_to=${range.start_year}` });
  out.push({ scenario: future.name, name: 'frost_days, warming_level', indicator: 'frost_days', query: (r: number) => `warming_level=1.5&dataset=${dataset}&agg=10th,median,${90 - r}th` });
  return out;
}

export async function mapBench(baseUrl: string, token: string, catalog: Catalog, rounds = 8): Promise<MapRow[]> {
  process.stderr.write(`bench: ${MAP_BENCH}, ${rounds} rounds...\n`);
  const rows: MapRow[] = [];
  for (const dataset of catalog.datasets.map((d) => d.name)) {
    const cells = catalog.mapCells.count(dataset);
    if (cells === 0) continue;
    for (const req of requestsOf(catalog, dataset)) {
      const url = (r: number) => `${baseUrl}/api/climate-data/map/${req.scenario}/indicator/${req.indicator}/?${req.query(r)}`;
      // Warm-up on a round the measured ones do not ask for; a request the build cannot answer
      // (no model reaches the level within its years, more cells than MAP_MAX_DAY_CELLS) is left out, saying so.
      const warm = await get(url(rounds), token);
      if (warm.status !== 200) {
        process.stderr.write(`  ${dataset} ${req.name}: HTTP ${warm.status}, left out\n`);
        continue;
      }
      const row: MapRow = { dataset, cells, request: req.name, ms: [], bytes: 0 };
      for (let r = 0; r < rounds; r++) {
        const res = await get(url(r), token);
        if (res.status !== 200) throw new Error(`${url(r)}: HTTP ${res.status}`);
        row.ms.push(res.ms);
        row.bytes += res.bytes;
      }
      rows.push(row);
    }
  }
  return rows;
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export function printMaps(rows: MapRow[]) {
  console.log(`\n${MAP_BENCH}: 1 client, medians, compressed (${ACCEPT_ENCODING})`);
  console.log('\n| dataset | cells | request | ms (median) | ms (min-max) | KB/response |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) {
    const s = [...r.ms].sort((a, b) => a - b);
    console.log(`| ${r.dataset} | ${r.cells} | ${r.request} | ${median(r.ms).toFixed(1)} | ${s[0]!.toFixed(1)}-${s.at(-1)!.toFixed(1)} | ${(r.bytes / r.ms.length / 1024).toFixed(1)} |`);
  }
}

export interface MapExactness {
  dataset: string;
  indicators: number;
  cells: number;
  compared: number;
  mismatches: string[];
}

/**
 * The maps' exactness on the build the bench runs on (issue 51: "a sample of cells of the default
 * build, for every indicator"): for each dataset and every indicator the dataset's variables allow,
 * at its default parameters (a threshold for the threshold counts) over the future scenario's last 30 years, five cells of the whole map
 * (first, last and three between) against the indicator endpoint asked for that cell alone
 * (time_aggregation=window). Every statistic must be equal to the bit; a map the build refuses
 * (past MAP_MAX_DAY_CELLS) is left out, saying so.
 */
export async function mapExactness(baseUrl: string, token: string, catalog: Catalog): Promise<MapExactness[]> {
  process.stderr.write('bench: maps: exactness of a sample of cells, every indicator...\n');
  const out: MapExactness[] = [];
  for (const dataset of catalog.datasets.map((d) => d.name)) {
    if (catalog.mapCells.count(dataset) === 0) continue;
    const req = requestsOf(catalog, dataset)[0];
    if (!req) continue;
    const years = /years=([\d:]+)/.exec(req.query(0))![1]!;
    const row: MapExactness = { dataset, indicators: 0, cells: 0, compared: 0, mismatches: [] };
    const variables: readonly string[] = datasetVariables(dataset);
    for (const meta of INDICATORS.filter((m) => m.variables.every((v) => variables.includes(v)))) {
      // The threshold counts have no default threshold: one each, as the tests ask (they read the days).
      const own = meta.parameters.some((p) => p.name === 'threshold') ? (meta.variables[0] === 'pr' ? '&threshold=1&threshold_units=mm/day&threshold_comparator=gt' : '&threshold=70&threshold_units=F&threshold_comparator=gte') : '';
      const map = await getJson(`${baseUrl}/api/climate-data/map/${req.scenario}/indicator/${meta.name}/?years=${years}&dataset=${dataset}${own}`, token);
      if (map.status !== 200) {
        process.stderr.write(`  ${dataset} ${meta.name}: HTTP ${map.status} (${String(map.body.detail).slice(0, 120)}), left out\n`);
        continue;
      }
      row.indicators++;
      const ids: number[] = map.body.cells.id;
      row.cells = ids.length;
      const sample = [...new Set([0, 1, 2, 3, 4].map((k) => Math.round((k * (ids.length - 1)) / 4)))];
      const aggs = Object.keys(map.body.values);
      for (const i of sample) {
        const point = await getJson(
          `${baseUrl}/api/climate-data/${map.body.cells.lat[i]}/${map.body.cells.lon[i]}/${req.scenario}/indicator/${meta.name}/?agg=${aggs.join(',')}&time_aggregation=window&windows=${years}&dataset=${dataset}${own}`,
          token,
        );
        const stats = point.status === 200 ? (point.body.data[years.replace(':', '-')] ?? {}) : {};
        for (const agg of aggs) {
          const want = point.status === 200 ? (stats[agg] ?? null) : `HTTP ${point.status}`;
          if (map.body.values[agg][i] !== want) row.mismatches.push(`${meta.name} cell ${ids[i]} ${agg}: map ${map.body.values[agg][i]}, point ${want}`);
        }
        row.compared++;
      }
    }
    out.push(row);
  }
  return out;
}

export function printMapExactness(rows: MapExactness[]) {
  console.log('\nmaps: exactness, a sample of cells against the indicator endpoint for that cell alone (every indicator, default parameters, 30 years)');
  console.log('\n| dataset | indicators | cells in the map | (indicator, cell) pairs compared | mismatches |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.dataset} | ${r.indicators} | ${r.cells} | ${r.compared} | ${r.mismatches.length} |`);
  for (const r of rows) for (const m of r.mismatches.slice(0, 10)) console.log(`  ${r.dataset}: ${m}`);
  // A map that differs from the point answers fails the bench run, after its figures are out.
  if (rows.some((r) => r.mismatches.length > 0)) process.exitCode = 1;
}
