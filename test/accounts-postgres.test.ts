import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAccountStore } from '../src/auth/postgresAccountStore.js';
import { loadConfig, ROOT } from '../src/config.js';
import { startPostgres, type PostgresServer } from '../scripts/localServers/postgres.js';
import { testApp, type TestApp } from './helpers.js';
import { compiled } from './support/compiled.js';

/**
 * ACCOUNTS_URL: accounts in a real PostgreSQL (Debian's package, started in a temporary folder),
 * shared by two app instances as two replicas would share it.
 */

const SECRET = 'a-shared-token-signing-secret-of-40-chars';
let pg: PostgresServer;
const apps: TestApp[] = [];

beforeAll(async () => {
  pg = await startPostgres();
}, 60_000);

afterAll(async () => {
  for (const a of apps) await a.auth.close().catch(() => undefined);
  await pg?.close();
});

async function replica(): Promise<TestApp> {
  const t = await testApp({ ACCOUNTS_URL: pg.url, TOKEN_SECRET: SECRET });
  apps.push(t);
  return t;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A TCP relay to PostgreSQL whose answers can be held back (`delay` ms), to make a read slow
 * after the database took its snapshot, as a congested network would.
 */
async function slowRelay(url: string): Promise<{ url: string; delay: number; close(): Promise<void> }> {
  const target = new URL(url);
  const sockets = new Set<net.Socket>();
  const relay = {
    url: '',
    delay: 0,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined).on('close', () => (client.destroy(), upstream.destroy()));
    }
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => (relay.delay ? setTimeout(() => client.write(d), relay.delay) : client.write(d)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const relayed = new URL(url);
  relayed.port = String((server.address() as net.AddressInfo).port);
  relay.url = relayed.toString();
  return relay;
}

const cities = (t: TestApp, token = t.token) => request(t.app).get('/api/city/?page_size=1').set('Authorization', `Token ${token}`);
const login = (t: TestApp, path = '/api-token-auth/') => request(t.app).post(path).send({ email: 'tester@example.com', password: 'test-password' });

describe('PostgreSQL account store', () => {
  it('keeps accounts: created once, found case-insensitively, updated, versions bumped', async () => {
    const store = new PostgresAccountStore(pg.url, SECRET);
    try {
      await store.migrate();
      await store.migrate(); // idempotent
      const a = await store.create('  Mixed@Example.COM ', 'scrypt$hash');
      expect(a).toMatchObject({ email: 'mixed@example.com', tokenVersion: 1, isActive: true, burstRate: null, sustainedRate: null });
      await expect(store.create('mixed@example.com', 'x')).rejects.toThrow('An account with email mixed@example.com exists already.');
      expect((await store.findByEmail('MIXED@example.com'))?.id).toBe(a.id);
      await store.setPassword(a.id, 'scrypt$other');
      await store.setActive(a.id, false);
      await store.setRates(a.id, '100/min', null);
      expect(await store.bumpTokenVersion(a.id)).toBe(2);
      expect(await store.getById(a.id)).toMatchObject({ passwordHash: 'scrypt$other', isActive: false, burstRate: '100/min', tokenVersion: 2 });
      expect(await store.tokenState(a.id)).toMatchObject({ tokenVersion: 2, isActive: false });
      expect(await store.tokenState(999_999)).toBeUndefined();
      expect(await store.signingSecret()).toBe(SECRET);
      await expect(store.setRates(999_999, null, null)).rejects.toThrow('No account 999999.');
    } finally {
      await store.close();
    }
  });

  it('trusts a state for 1 s from when its read was sent, however late the answer came', async () => {
    const direct = new PostgresAccountStore(pg.url, SECRET);
    const relay = await slowRelay(pg.url);
    const slow = new PostgresAccountStore(relay.url, SECRET);
    try {
      await direct.migrate();
      const { id } = await direct.create('slow@example.com', 'scrypt$hash');
      await slow.tokenState(id); // connected, and the state cached
      await sleep(1100);
      relay.delay = 1200;
      const read = slow.tokenState(id); // PostgreSQL answers at once, the answer arrives 1.2 s later
      await sleep(100);
      await direct.bumpTokenVersion(id);
      const bumped = Date.now();
      expect((await read)?.tokenVersion).toBe(1);
      relay.delay = 0;
      // The state read came from before the bump: past 1 s after the bump it must not be used.
      await sleep(Math.max(0, 1000 - (Date.now() - bumped)));
      expect((await slow.tokenState(id))?.tokenVersion).toBe(2);
    } finally {
      await slow.close();
      await direct.close();
      await relay.close();
    }
  });

  it('refuses to start without the shared signing secret', async () => {
    expect(() => loadConfig({ ACCOUNTS_URL: pg.url })).toThrow(/ACCOUNTS_URL: set TOKEN_SECRET or TOKEN_SECRET_FILE too/);
    const env: NodeJS.ProcessEnv = { ...process.env, ACCOUNTS_URL: pg.url };
    delete env.TOKEN_SECRET;
    delete env.TOKEN_SECRET_FILE;
    const started = promisify(execFile)(process.execPath, [compiled('src/server.ts')], { cwd: ROOT, env, encoding: 'utf8', timeout: 20_000 });
    const failed = (await started.then(() => undefined, (err: unknown) => err)) as { code?: number; stderr?: string } | undefined;
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toMatch(/ACCOUNTS_URL: set TOKEN_SECRET or TOKEN_SECRET_FILE too/);
  }, 30_000);

  it('lets a token from replica A in on B, and a refresh on A locks the old token out of B within 1 s', async () => {
    const [a, b] = [await replica(), await replica()];
    const token = (await login(a).expect(200)).body.token as string;
    expect((await cities(b, token)).status).toBe(200);
    const fresh = (await login(a, '/api-token-auth/refresh/').expect(200)).body.token as string;
    const refreshed = Date.now();
    expect((await cities(b, fresh)).status).toBe(200);
    // B may trust its state of the account for at most a second.
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - refreshed))));
    const old = await cities(b, token);
    expect(old.status).toBe(401);
    expect(old.body).toEqual({ detail: 'Invalid token.' });
  });

  it('answers 503 (not 500, not a hang) while PostgreSQL is down, /readyz too, and recovers without a restart', async () => {
    const a = await replica();
    expect((await cities(a)).status).toBe(200);
    await pg.stop();
    try {
      await new Promise((r) => setTimeout(r, 1100)); // past the token-state cache
      const started = Date.now();
      const res = await cities(a);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(res.status).toBe(503);
      expect(res.body.detail).toMatch(/account store \(PostgreSQL\) is not answering/);
      expect(res.headers['retry-after']).toBe('5');
      expect((await login(a)).status).toBe(503);
      const ready = await request(a.app).get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.detail).toMatch(/PostgreSQL/);
    } finally {
      await pg.start();
    }
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (status !== 200 && Date.now() < deadline) status = (await cities(a)).status;
    expect(status).toBe(200);
    expect((await request(a.app).get('/readyz')).status).toBe(200);
  }, 30_000);

  it('make user and make migrate work against PostgreSQL; every replica sees the account', async () => {
    const env = { ...process.env, ACCOUNTS_URL: pg.url, TOKEN_SECRET: SECRET };
    const migrated = await promisify(execFile)(process.execPath, [compiled('src/cli/migrate.ts')], { cwd: ROOT, env, encoding: 'utf8' });
    expect(migrated.stdout).toMatch(/up to date/);
    const made = await promisify(execFile)(process.execPath, [compiled('src/cli/user.ts'), '--email', 'analyst@example.com', '--password', 'analyst-password'], { cwd: ROOT, env, encoding: 'utf8' });
    const token = made.stdout.trim().split('\n').pop()!;
    const [a, b] = [await replica(), await replica()];
    expect((await cities(a, token)).status).toBe(200);
    expect((await cities(b, token)).status).toBe(200);
  }, 60_000);
});
