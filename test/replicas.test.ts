import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ROOT } from '../src/config.js';
import { startPostgres, type PostgresServer } from '../scripts/localServers/postgres.js';
import { freePort, until } from '../scripts/localServers/ports.js';
import { startRedis, type RedisServer } from '../scripts/localServers/redis.js';
import { compiled } from './support/compiled.js';

/**
 * Two replicas (separate server processes) on one data build, one PostgreSQL and one Redis, as
 * docs/operations.md, "Running several replicas", describes them.
 */

const SECRET = 'replicas-test-shared-token-secret-0123456789';
let pg: PostgresServer;
let redis: RedisServer;
let tmp: string;
const servers: ChildProcess[] = [];
let env: NodeJS.ProcessEnv;

async function makeUser(email: string, ...flags: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [compiled('src/cli/user.ts'), '--email', email, '--password', 'replica-password', ...flags], { cwd: ROOT, env, encoding: 'utf8' });
  return stdout.trim().split('\n').pop()!;
}

async function startReplica(): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [compiled('src/server.ts')], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
  servers.push(child);
  const base = `http://127.0.0.1:${port}`;
  await until(`replica on port ${port}`, async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200, 30_000);
  return base;
}

beforeAll(async () => {
  [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'replicas-'));
  env = { ...process.env, DATA_DIR: inject('dataDir'), ACCOUNTS_URL: pg.url, THROTTLE_URL: redis.url, TOKEN_SECRET: SECRET, THROTTLE_BURST_RATE: '20/min' };
}, 90_000);

afterAll(async () => {
  for (const s of servers) s.kill('SIGKILL');
  await Promise.all([pg?.close(), redis?.close()]);
  fs.rmSync(tmp, { recursive: true, force: true });
});

const CLIMATE = '/api/climate-data/5128581/RCP85/indicator/frost_days/';
const get = (base: string, token: string, p = CLIMATE) => fetch(`${base}${p}`, { headers: { authorization: `Token ${token}` } });

describe('two replicas on PostgreSQL and Redis', () => {
  it('share accounts, tokens, revocation and the burst count, and ride out Redis and PostgreSQL restarts', async () => {
    // make user against PostgreSQL, before any replica runs: both see the account.
    const token = await makeUser('analyst@example.com');
    const [a, b] = await Promise.all([startReplica(), startReplica()]);
    expect((await get(a, token, '/api/city/?page_size=1')).status).toBe(200);
    expect((await get(b, token, '/api/city/?page_size=1')).status).toBe(200);

    // The burst limit (20/min) counts requests to both: the 21st of the minute gets 429 on either.
    for (let i = 0; i < 20; i++) expect((await get(i % 2 ? b : a, token)).status, `request ${i + 1}`).toBe(200);
    expect((await get(a, token)).status).toBe(429);
    expect((await get(b, token)).status).toBe(429);

    // A refresh on A: the new token works on B at once, the old one is refused on B within 1 s.
    const refreshed = await fetch(`${a}/api-token-auth/refresh/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'analyst@example.com', password: 'replica-password' }) });
    expect(refreshed.status).toBe(200);
    const at = Date.now();
    const fresh = ((await refreshed.json()) as { token: string }).token;
    expect((await get(b, fresh, '/api/city/?page_size=1')).status).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - at))));
    expect((await get(b, token, '/api/city/?page_size=1')).status).toBe(401);

    // Faults under load: 8 clients over both replicas while Redis, then PostgreSQL, stop and start.
    const load = await makeUser('load@example.com', '--burst-rate', '1000000/min', '--sustained-rate', '100000000/day');
    const statuses = new Map<number, number>();
    const bodies503: string[] = [];
    const errors: string[] = [];
    let running = true;
    const client = async (i: number) => {
      while (running) {
        try {
          const res = await get(i % 2 ? b : a, load, i % 4 < 2 ? CLIMATE : '/api/city/?page_size=1');
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const text = await res.text();
          if (res.status === 503) bodies503.push(text);
        } catch (err) {
          errors.push(String(err));
        }
      }
    };
    const clients = Array.from({ length: 8 }, (_, i) => client(i));
    await new Promise((r) => setTimeout(r, 500));
    await redis.stop();
    await new Promise((r) => setTimeout(r, 1000));
    await redis.start();
    await pg.stop();
    await new Promise((r) => setTimeout(r, 1500));
    await pg.start();
    // Both replicas answer again without a restart.
    await until('recovery', async () => (await get(a, load)).status === 200 && (await get(b, load)).status === 200, 15_000);
    await new Promise((r) => setTimeout(r, 500));
    running = false;
    await Promise.all(clients);

    expect(errors).toEqual([]);
    // Only 200s and the documented 503 of an unreachable account store.
    expect([...statuses.keys()].filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(statuses.get(200)).toBeGreaterThan(0);
    // The PostgreSQL outage outlasted the 1 s state cache: it was seen, as 503s.
    expect(statuses.get(503)).toBeGreaterThan(0);
    for (const body of bodies503) expect(JSON.parse(body).detail).toMatch(/account store \(PostgreSQL\) is not answering/);
    // Counting resumed in Redis (restarted empty): a fresh window of 20 over both, then 429 on either.
    for (let i = 0; i < 20; i++) expect((await get(i % 2 ? a : b, fresh)).status, `request ${i + 1} after the restarts`).toBe(200);
    expect((await get(a, fresh)).status).toBe(429);
    expect((await get(b, fresh)).status).toBe(429);
  }, 120_000);
});
