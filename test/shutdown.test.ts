import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { afterAll, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createAuth } from '../src/auth/index.js';
import { hashPassword } from '../src/auth/passwords.js';
import { loadConfig, ROOT } from '../src/config.js';
import { tempAccountsDb } from './helpers.js';
import { compiled } from './support/compiled.js';

const NYC = 5128581;
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

/** An account in a fresh accounts file, and its token, before the server opens the file. */
async function accountsWithToken() {
  const file = tempAccountsDb();
  const auth = await createAuth(loadConfig({ ACCOUNTS_DB: file }));
  const account = await auth.accounts.create('ops@example.com', await hashPassword('ops-password'));
  const token = await auth.tokens.issue(account.id, account.tokenVersion);
  await auth.close();
  return { file, token };
}

/** The server as `make run` starts it, on the test data; resolves with its port once it listens. */
async function startServer(env: Record<string, string>) {
  const child = spawn(process.execPath, [compiled('src/server.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  let buffered = '';
  const port = new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      buffered += d.toString();
      const complete = buffered.split('\n');
      buffered = complete.pop()!;
      for (const line of complete) {
        const record = JSON.parse(line) as Record<string, unknown>;
        lines.push(record);
        if (record.msg === 'listening') resolve(Number(new URL(record.url as string).port));
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening: ${stderr}`)));
  });
  return { child, lines, port: await port, stderr: () => stderr };
}

/**
 * A GET, by default on a connection of its own; resolves with the status, the body and when it
 * ended. The in-flight requests use keep-alive connections, which a shutdown has to close itself.
 */
function get(port: number, url: string, token?: string, agent: http.Agent | false = false) {
  return new Promise<{ status: number; body: string; endedAt: number; connection?: string }>((resolve, reject) => {
    const headers = token ? { authorization: `Token ${token}` } : {};
    http
      .get({ host: '127.0.0.1', port, path: url, headers, agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body, endedAt: performance.now(), connection: res.headers.connection }));
      })
      .on('error', reject);
  });
}

const sample = (text: string, name: string) => Number(/^(\S+) (\S+)$/m.exec(text.split('\n').find((l) => l.startsWith(`${name} `)) ?? '')?.[2] ?? NaN);

it('on SIGTERM finishes the requests in flight with 200, refuses new connections, and exits 0', async () => {
  const { file, token } = await accountsWithToken();
  const server = await startServer({
    DATA_DIR: inject('dataDir'),
    ACCOUNTS_DB: file,
    // One query at a time: the raw requests below queue behind each other, so the last ones are
    // genuinely still waiting for DuckDB when the signal arrives.
    QUERY_CONCURRENCY: '1',
    THROTTLE_BURST_RATE: '100000/min',
    THROTTLE_SUSTAINED_RATE: '1000000/day',
  });
  const n = 24;
  const keepAlive = new http.Agent({ keepAlive: true, maxSockets: n });
  const url = (i: number) => `/api/climate-data/${NYC}/RCP85/?variables=tasmax,tasmin,pr&agg=${['avg', 'min', 'max'][i % 3]}&_=${i}`;
  const inFlight = Array.from({ length: n }, (_, i) => get(server.port, url(i), token, keepAlive));

  // Wait until the server holds at least half of them in its query queue.
  for (let tries = 0; ; tries++) {
    const metrics = await get(server.port, '/metrics');
    if (sample(metrics.body, 'duckdb_queries_queued') >= n / 4) break;
    if (tries > 500) throw new Error('the requests never queued');
    await new Promise((r) => setTimeout(r, 5));
  }
  const signalledAt = performance.now();
  server.child.kill('SIGTERM');
  // 'close', not 'exit': the last log lines may still be in the pipe when the process has exited.
  const exited = once(server.child, 'close') as Promise<[number | null, string | null]>;

  // Once the shutdown has started, a new connection is refused.
  for (let tries = 0; !server.lines.some((l) => l.msg === 'shutting down: finishing in-flight requests'); tries++) {
    if (tries > 1000) throw new Error('no shutdown log line');
    await new Promise((r) => setTimeout(r, 2));
  }
  await expect(get(server.port, '/healthz')).rejects.toThrow(/ECONNREFUSED|ECONNRESET/);

  const responses = await Promise.all(inFlight);
  for (const r of responses) {
    expect(r.status).toBe(200);
    expect((JSON.parse(r.body) as { data: object }).data).toHaveProperty('2050');
  }
  // Some were still queued when the signal was sent: the shutdown waited for them, and their
  // keep-alive connections were told to close (only a shutdown sets that).
  expect(responses.filter((r) => r.endedAt > signalledAt).length).toBeGreaterThanOrEqual(1);
  expect(responses.some((r) => r.connection === 'close')).toBe(true);

  const [code] = await exited;
  expect(code).toBe(0);
  const shutdown = server.lines.find((l) => l.msg === 'shutting down: finishing in-flight requests');
  expect(shutdown).toMatchObject({ signal: 'SIGTERM' });
  expect(shutdown!.in_flight as number).toBeGreaterThanOrEqual(1);
  expect(server.lines.at(-1), JSON.stringify(server.lines.slice(-3))).toMatchObject({ msg: 'stopped' });
  // Every raw request got its log line, each with the account.
  const logged = server.lines.filter((l) => l.route === '/api/climate-data/:city/:scenario/');
  expect(logged).toHaveLength(n);
  expect(logged.every((l) => l.status === 200 && typeof l.account_id === 'number')).toBe(true);
  expect(server.stderr()).toBe('');
  keepAlive.destroy();
}, 60_000);

it('exits 1 when requests outlast SHUTDOWN_TIMEOUT_MS', async () => {
  const { file, token } = await accountsWithToken();
  const server = await startServer({
    DATA_DIR: inject('dataDir'),
    ACCOUNTS_DB: file,
    QUERY_CONCURRENCY: '1',
    SHUTDOWN_TIMEOUT_MS: '1',
    THROTTLE_BURST_RATE: '100000/min',
  });
  const n = 24;
  const inFlight = Array.from({ length: n }, (_, i) => get(server.port, `/api/climate-data/${NYC}/RCP85/?_=${i}`, token).catch((err: Error) => err));
  for (let tries = 0; ; tries++) {
    if (sample((await get(server.port, '/metrics')).body, 'duckdb_queries_queued') >= n / 4) break;
    if (tries > 500) throw new Error('the requests never queued');
    await new Promise((r) => setTimeout(r, 5));
  }
  server.child.kill('SIGTERM');
  const [code] = (await once(server.child, 'close')) as [number | null];
  expect(code).toBe(1);
  expect(server.lines.some((l) => l.msg === 'shutdown deadline passed: exiting with requests unfinished')).toBe(true);
  // The ones still queued were cut off.
  expect((await Promise.all(inFlight)).some((r) => r instanceof Error)).toBe(true);
}, 60_000);
