/**
 * Maps (GET /api/climate-data/map/...): the whole map of each dataset of the build, at the
 * indicators' default parameters (frost_days and average_high_temperature from the monthly
 * summaries, max_heat_index from the days), over 30 years (or the years the build has), three
 * statistics (the default 10th,median,90th); on NEX-GDDP also with relative_to and at a warming
 * level. One client, compressed as clients ask; every path distinct (each round another window),
 * so that no response cache could serve a repeat (at the warming level, each round another top percentile). Medians of the per-request times, body read to
 * its end. Run alone: BENCH_ONLY=maps: make bench (or with DATA_DIR= another build, e.g. one of
 * make bench-catalog's region builds with BENCH_MAP_SCENARIO=ssp245).
 */
import http from 'node:http';
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
  if (datasetVariables(dataset).includes('huss')) out.push({ scenario: future.name, name: 'max_heat_index (from the days), years', indicator: 'max_heat_index', query: (r: number) => `years=${years(r)}&dataset=${dataset}` });
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

const median = (xs: number[]) => {
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
