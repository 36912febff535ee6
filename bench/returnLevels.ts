/**
 * The 20-, 50- and 100-year return levels of max_1day_precipitation (every NEX-GDDP model fitted
 * over 30 RCP85 years) against the plain yearly request of the same indicator, cell and 30 years
 * (the target: at most 1.5 times its time). One client; each pair of requests alternates
 * which goes first, so that machine noise hits both alike, and every path is distinct (one city
 * per cell with data, a window of other years each round), so that no response cache could serve
 * a repeat. Medians of the per-request times, body read to its end, compressed as the other
 * workloads. Run alone: BENCH_ONLY=return make bench.
 */
import http from 'node:http';
import { scenarioYears } from '../src/reference/datasetContents.js';
import type { Catalog } from '../src/reference/catalog.js';
import { citiesPerCell } from './workloads.js';

const ACCEPT_ENCODING = 'gzip, deflate, br';
export const RETURN_LEVELS_BENCH = 'return levels: max_1day_precipitation 20-, 50-, 100-year over 30 years vs the plain yearly request';

export interface ReturnLevelRow {
  cities: number;
  rounds: number;
  plainMs: number[];
  returnLevelMs: number[];
}

function get(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(url, { headers: { authorization: `Token ${token}`, 'accept-encoding': ACCEPT_ENCODING } }, (res) => {
      res.on('data', () => {});
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`${url}: HTTP ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

export async function returnLevelBench(baseUrl: string, token: string, catalog: Catalog, rounds = 6): Promise<ReturnLevelRow> {
  const cities = citiesPerCell(catalog);
  const [first, last] = scenarioYears(catalog, catalog.datasetByName.get('NEX-GDDP')!, catalog.scenarioByName.get('RCP85')!);
  // Round r's window: 30 years ending r * 5 years before the scenario's end (the default window in round 0).
  const years = (round: number) => `${Math.max(first, last - 29 - 5 * round)}:${Math.max(first + 29, last - 5 * round)}`;
  const url = (city: number, round: number, extra: string) => `${baseUrl}/api/climate-data/${city}/RCP85/indicator/max_1day_precipitation/?years=${years(round)}${extra}`;
  process.stderr.write(`bench: ${RETURN_LEVELS_BENCH}, ${cities.length} cells x ${rounds} rounds, alternating...\n`);
  // Warm-up on a window the rounds do not ask for.
  for (const city of cities.slice(0, 10)) {
    await get(url(city, rounds, ''), token);
    await get(url(city, rounds, '&return_period=20,50,100'), token);
  }
  const row: ReturnLevelRow = { cities: cities.length, rounds, plainMs: [], returnLevelMs: [] };
  for (let r = 0; r < rounds; r++) {
    for (const [i, city] of cities.entries()) {
      const plain = () => get(url(city, r, ''), token).then((ms) => row.plainMs.push(ms));
      const levels = () => get(url(city, r, '&return_period=20,50,100'), token).then((ms) => row.returnLevelMs.push(ms));
      if ((r + i) % 2 === 0) {
        await plain();
        await levels();
      } else {
        await levels();
        await plain();
      }
    }
  }
  return row;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export function printReturnLevels(row: ReturnLevelRow) {
  const plain = median(row.plainMs);
  const levels = median(row.returnLevelMs);
  console.log(`\n${RETURN_LEVELS_BENCH}: ${row.cities} cells x ${row.rounds} rounds, 1 client, alternating, medians, compressed (${ACCEPT_ENCODING})`);
  console.log('\n| request | ms (median) | ms (p10-p90) |');
  console.log('|---|---|---|');
  const spread = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return `${s[Math.floor(s.length * 0.1)]!.toFixed(1)}-${s[Math.floor(s.length * 0.9)]!.toFixed(1)}`;
  };
  console.log(`| yearly, 30 years | ${plain.toFixed(1)} | ${spread(row.plainMs)} |`);
  console.log(`| return_period=20,50,100 over the same 30 years | ${levels.toFixed(1)} | ${spread(row.returnLevelMs)} |`);
  console.log(`\nreturn levels / plain: ${(levels / plain).toFixed(2)} (target <= 1.5)`);
}
