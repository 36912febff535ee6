import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../scripts/localServers/redis.js';
import { testApp, type TestApp } from './helpers.js';

/** The batch charge (N requests' worth, all or nothing) with the counters in Redis, over two replicas. */

let redis: RedisServer;
let admin: Redis;
const apps: TestApp[] = [];

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  admin.on('error', () => {});
}, 30_000);

afterAll(async () => {
  for (const a of apps) await a.throttleStores.close();
  admin?.disconnect();
  await redis?.close();
});

beforeEach(async () => {
  await admin.flushall();
});

async function replica(): Promise<TestApp> {
  const t = await testApp({ THROTTLE_URL: redis.url, THROTTLE_BURST_RATE: '5/min', BATCH_CELLS_PER_REQUEST: '1' });
  apps.push(t);
  return t;
}

const NYC = 5128581;
const single = (t: TestApp) => request(t.app).get(`/api/climate-data/${NYC}/RCP85/indicator/frost_days/`).set('Authorization', `Token ${t.token}`);
const batch = (t: TestApp, cities: number[]) =>
  request(t.app).post('/api/climate-data/batch/RCP85/indicator/frost_days/').set('Authorization', `Token ${t.token}`).send({ locations: cities.map((city) => ({ city })) });

/** One city per cell with data, so that each counts as one request at BATCH_CELLS_PER_REQUEST=1. */
function citiesOnDistinctCells(t: TestApp): number[] {
  const byCell = new Map<number, number>();
  for (const [id, cells] of t.catalog.cityCells) {
    const cell = cells.get('NEX-GDDP');
    if (cell !== undefined && t.catalog.mapCells.has('NEX-GDDP', cell) && !byCell.has(cell)) byCell.set(cell, id);
  }
  return [...byCell.values()];
}

describe('batch charge with THROTTLE_URL', () => {
  it('counts a batch as its cells in the shared counter, and refuses one over the remaining budget without charging it', async () => {
    const [a, b] = [await replica(), await replica()];
    const cities = citiesOnDistinctCells(a).slice(0, 3);
    expect(cities).toHaveLength(3);
    await batch(a, cities).expect(200);
    expect(await admin.get('throttle:burst:5/min:1')).toBe('3');
    // 3 used of 5: a batch of 3 is refused on the other replica, and charged nothing.
    const refused = await batch(b, cities);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await admin.get('throttle:burst:5/min:1')).toBe('3');
    await single(b).expect(200);
    await single(a).expect(200);
    await single(b).expect(429);
  });
});
