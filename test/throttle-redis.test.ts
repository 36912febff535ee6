import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createThrottleStores } from '../src/http/throttleStore.js';
import { createLogger } from '../src/logger.js';
import { startRedis, type RedisServer } from '../scripts/localServers/redis.js';
import { testApp, type TestApp } from './helpers.js';

/**
 * THROTTLE_URL: the throttle counters in a real Redis, shared by two app instances (two replicas
 * in one process: each with its own accounts file holding account 1, the key the throttle counts).
 */

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

async function replica(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await testApp({ THROTTLE_URL: redis.url, THROTTLE_BURST_RATE: '6/min', TOKEN_AUTH_RATE: '3/min', ...env });
  apps.push(t);
  return t;
}

const CLIMATE = '/api/climate-data/5128581/RCP85/indicator/frost_days/';
const get = (t: TestApp, path = CLIMATE) => request(t.app).get(path).set('Authorization', `Token ${t.token}`);

describe('Redis throttle store (THROTTLE_URL)', () => {
  it('counts the burst limit over both replicas: the 7th request of a minute at 6/min gets 429 on either', async () => {
    const [a, b] = [await replica(), await replica()];
    for (let i = 0; i < 6; i++) expect((await get(i % 2 ? b : a)).status, `request ${i + 1}`).toBe(200);
    const refused = await get(a);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.body.detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds?\.$/);
    expect((await get(b)).status).toBe(429);
    // The counter sits in Redis under the limiter's name.
    expect(await admin.keys('throttle:burst:6/min:*')).toEqual(['throttle:burst:6/min:1']);
  });

  it('shares the token endpoint throttle (per client address) between replicas', async () => {
    const [a, b] = [await replica(), await replica()];
    const wrong = { email: 'nobody@example.com', password: 'wrong-password' };
    for (let i = 0; i < 3; i++) expect((await request(i % 2 ? b.app : a.app).post('/api-token-auth/').send(wrong)).status).toBe(400);
    expect((await request(b.app).post('/api-token-auth/').send(wrong)).status).toBe(429);
    expect((await request(a.app).post('/api-token-auth/refresh/').send(wrong)).status).toBe(429);
  });

  it("keeps an account's own rate (a per-account override) apart from the default", async () => {
    const a = await replica();
    await a.auth.accounts.setRates(1, '2/min', null);
    expect((await get(a)).status).toBe(200);
    expect((await get(a)).status).toBe(200);
    expect((await get(a)).status).toBe(429);
    expect(await admin.keys('throttle:burst:*')).toEqual(['throttle:burst:2/min:1']);
  });

  it('fails open while Redis is down (answers, counts the failures in /metrics) and counts again once it is back', async () => {
    const a = await replica({ THROTTLE_BURST_RATE: '3/min' });
    expect((await get(a)).status).toBe(200);
    await redis.stop();
    try {
      // More requests than the limit allows: none refused, none failed, none slow.
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        expect((await get(a)).status).toBe(200);
        expect(Date.now() - started).toBeLessThan(3000);
      }
      const metrics = await request(a.app).get('/metrics').expect(200);
      const errors = Number(/^throttle_store_errors_total (\d+)$/m.exec(metrics.text)?.[1]);
      expect(errors).toBeGreaterThanOrEqual(5);
    } finally {
      await redis.start();
    }
    // The client reconnects by itself: within a few seconds the limit holds again.
    const deadline = Date.now() + 15_000;
    let status = 200;
    while (status !== 429 && Date.now() < deadline) {
      status = (await get(a)).status;
      if (status !== 429) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(429);
  }, 40_000);

  it('logs a warning at most once a minute while Redis fails', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    const stores = await createThrottleStores({ THROTTLE_URL: redis.url }, createLogger('info', sink));
    try {
      const store = stores.store('burst:1/min');
      store.init?.({ windowMs: 60_000 } as never);
      await new Promise((r) => setTimeout(r, 200));
      expect(await store.increment('42')).toMatchObject({ totalHits: 1 });
      expect(await store.increment('42')).toMatchObject({ totalHits: 2 });
      await redis.stop();
      try {
        for (let i = 0; i < 4; i++) expect(await store.increment('42')).toMatchObject({ totalHits: 1 });
        const warnings = lines.filter((l) => l.level === 40);
        expect(warnings).toHaveLength(1);
        expect(String(warnings[0]!.msg)).toMatch(/throttle store \(Redis\) failed: requests pass uncounted/);
        expect(stores.errors).toBeGreaterThanOrEqual(4);
      } finally {
        await redis.start();
      }
    } finally {
      await stores.close();
    }
  }, 30_000);
});
