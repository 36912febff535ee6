/**
 * A batch of 50 cities' frost_days (all 21 NEX-GDDP models, yearly, 86-95 RCP85 years) against the
 * same 50 cities asked one after the other: wall time of each, and their ratio (the target:
 * the batch in at most 1/5 of the singles' time). Both with `Accept-Encoding: gzip, deflate, br`
 * as the other workloads, the body read to its end. The two alternate round by round so that
 * machine noise hits them alike, and every round asks for other years, so that no response cache
 * could serve a repeat. Run alone: BENCH_ONLY=batch make bench.
 */
import http from 'node:http';
import type { Catalog } from '../src/reference/catalog.js';

const ACCEPT_ENCODING = 'gzip, deflate, br';

export interface BatchRow {
  cities: number;
  cells: number;
  rounds: number;
  batchMs: number[];
  singlesMs: number[];
}

function send(url: string, token: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const headers: http.OutgoingHttpHeaders = { authorization: `Token ${token}`, 'accept-encoding': ACCEPT_ENCODING };
    if (body) headers['content-type'] = 'application/json';
    const req = http.request(url, { method: body ? 'POST' : 'GET', headers }, (res) => {
      res.on('data', () => {});
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`${url}: HTTP ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The 50 most populous cities whose NEX-GDDP cell has data (the default build's cities). */
function batchCities(catalog: Catalog, count: number): number[] {
  return [...catalog.cities]
    .sort((a, b) => b.population - a.population)
    .filter((c) => {
      const cell = catalog.cityCells.get(c.id)?.get('NEX-GDDP');
      return cell !== undefined && catalog.mapCells.has('NEX-GDDP', cell);
    })
    .slice(0, count)
    .map((c) => c.id);
}

export async function batchBench(baseUrl: string, token: string, catalog: Catalog, rounds = 10): Promise<BatchRow> {
  const cities = batchCities(catalog, 50);
  const cells = new Set(cities.map((id) => catalog.cityCells.get(id)!.get('NEX-GDDP'))).size;
  process.stderr.write(`bench: batch of ${cities.length} cities' frost_days (${cells} cells) vs ${cities.length} single requests in a row, ${rounds} rounds...\n`);
  const years = (round: number) => `${2006 + (round % 10)}:${2100 - Math.floor(round / 10)}`;
  const body = JSON.stringify({ locations: cities.map((city) => ({ city })) });
  const batch = (round: number) => send(`${baseUrl}/api/climate-data/batch/RCP85/indicator/frost_days/?years=${years(round)}`, token, body);
  const singles = async (round: number) => {
    const t0 = performance.now();
    for (const city of cities) await send(`${baseUrl}/api/climate-data/${city}/RCP85/indicator/frost_days/?years=${years(round)}`, token);
    return performance.now() - t0;
  };
  // Warm-up: Parquet metadata, the JIT, the connections' prepared statements.
  await singles(rounds);
  await batch(rounds + 1);
  const row: BatchRow = { cities: cities.length, cells, rounds, batchMs: [], singlesMs: [] };
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      row.batchMs.push(await batch(r));
      row.singlesMs.push(await singles(r));
    } else {
      row.singlesMs.push(await singles(r));
      row.batchMs.push(await batch(r));
    }
  }
  return row;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export function printBatch(row: BatchRow) {
  const b = median(row.batchMs);
  const s = median(row.singlesMs);
  console.log(`\nbatch: ${row.cities} cities' frost_days yearly (${row.cells} distinct cells), ${row.rounds} rounds, medians, compressed (${ACCEPT_ENCODING})`);
  console.log('\n| request | ms (median) | ms (min-max) |');
  console.log('|---|---|---|');
  console.log(`| one batch of ${row.cities} | ${b.toFixed(0)} | ${Math.min(...row.batchMs).toFixed(0)}-${Math.max(...row.batchMs).toFixed(0)} |`);
  console.log(`| ${row.cities} single requests in a row | ${s.toFixed(0)} | ${Math.min(...row.singlesMs).toFixed(0)}-${Math.max(...row.singlesMs).toFixed(0)} |`);
  console.log(`\nbatch / singles: ${(b / s).toFixed(2)} (target <= 0.20)`);
}
