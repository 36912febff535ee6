import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../src/config.js';
import { buildDataset } from '../src/ingest/build.js';
import { freePort, until } from '../scripts/localServers/ports.js';
import { compiled } from './support/compiled.js';

/**
 * New data without downtime: DATA_DIR is a symlink; after repointing it, SIGHUP makes a running
 * server (a real process) serve the new build while 16 clients keep asking, and refuse a bad one.
 */

const BUILD = {
  climateCities: 1,
  models: { 'NEX-GDDP': ['ACCESS1-0', 'CCSM4'], LOCA: ['ACCESS1-0'] },
  years: { historical: [1990, 1991], RCP45: [2050, 2051], RCP85: [2050, 2051] } as Record<string, [number, number]>,
};
const NYC = 5128581;
const SECRET = 'reload-test-token-secret-of-32-chars-or-more';

let tmp: string;
let server: ChildProcess | undefined;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'reload-test-'));
  // Two builds of the same places with different generator seeds: different values, other build ids.
  await buildDataset({ outDir: path.join(tmp, 'a'), seed: 1, ...BUILD, log: () => {} });
  await buildDataset({ outDir: path.join(tmp, 'b'), seed: 2, ...BUILD, log: () => {} });
  fs.mkdirSync(path.join(tmp, 'empty'));
  fs.symlinkSync(path.join(tmp, 'a'), path.join(tmp, 'current'));
}, 120_000);

afterAll(() => {
  server?.kill('SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Points the symlink elsewhere atomically (a new link renamed over the old), as an operator would. */
function repoint(target: string) {
  const next = path.join(tmp, 'current.next');
  fs.rmSync(next, { force: true });
  fs.symlinkSync(path.join(tmp, target), next);
  fs.renameSync(next, path.join(tmp, 'current'));
}

const buildId = (dir: string) => (JSON.parse(fs.readFileSync(path.join(tmp, dir, 'manifest.json'), 'utf8')) as { build_id: string }).build_id;

describe('SIGHUP: a new data build without downtime', () => {
  it('switches to the build the symlink names under load, with no failed request, and refuses a bad build', async () => {
    const { base, token, readyId } = await serve('server.pid', logLines);
    expect(fs.readFileSync(path.join(tmp, 'server.pid'), 'utf8').trim()).toBe(String(server!.pid));

    // What each build answers for one request: its first daily value, and its ETag.
    const url = `${base}/api/climate-data/${NYC}/RCP85/?years=2050`;
    const ask = async () => {
      const r = await fetch(url, { headers: { authorization: `Token ${token}` } });
      const body = (await r.json()) as { data: Record<string, { tasmax: number[] }> };
      return { status: r.status, value: body.data?.['2050']?.tasmax?.[0], etag: r.headers.get('etag') };
    };
    const before = await ask();
    expect(before.status).toBe(200);

    // 16 clients in a loop until told to stop; every answer and every failure is kept.
    const answers: { status: number; value: number | undefined; etag: string | null; started: number }[] = [];
    const failures: string[] = [];
    let running = true;
    const client = async () => {
      while (running) {
        const started = Date.now();
        try {
          answers.push({ ...(await ask()), started });
        } catch (err) {
          failures.push(String(err));
        }
      }
    };
    const clients = Array.from({ length: 16 }, client);
    await new Promise((r) => setTimeout(r, 1000));
    repoint('b');
    process.kill(server!.pid!, 'SIGHUP');
    await until('the new build', async () => ((await readyId()) === buildId('b')), 30_000);
    const switched = Date.now();
    await new Promise((r) => setTimeout(r, 1000));
    running = false;
    await Promise.all(clients);

    expect(failures).toEqual([]);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    const after = await ask();
    expect(after.value).not.toBe(before.value);
    expect(after.etag).not.toBe(before.etag);
    const values = new Set(answers.map((a) => a.value));
    expect(values).toEqual(new Set([before.value, after.value]));
    // Requests sent after /readyz named the new build all got its values.
    const late = answers.filter((a) => a.started > switched);
    expect(late.length).toBeGreaterThan(0);
    expect(late.every((a) => a.value === after.value && a.etag === after.etag)).toBe(true);
    await until('the old build closed', async () => (logLines.some((l) => l.msg === 'closed the previous data build' && l.build_id === buildId('a'))), 10_000);
    expect(logLines.some((l) => l.msg === 'serving the data build' && l.build_id === buildId('b') && l.previous_build_id === buildId('a'))).toBe(true);

    // A folder without a build: refused, the current build keeps answering.
    repoint('empty');
    process.kill(server!.pid!, 'SIGHUP');
    await until('the refusal', async () => (logLines.some((l) => /the new data build was refused/.test(String(l.msg)))), 10_000);
    const refused = logLines.find((l) => /the new data build was refused/.test(String(l.msg)))!;
    expect(String(refused.err)).toMatch(/no complete data build \(no manifest\.json\)/);
    expect(await readyId()).toBe(buildId('b'));
    expect(await ask()).toMatchObject({ status: 200, value: after.value });

    server!.kill('SIGTERM');
    await new Promise((r) => server!.once('exit', r));
    expect(fs.existsSync(path.join(tmp, 'server.pid'))).toBe(false);
  }, 120_000);

  it('refuses every build it cannot serve, keeps serving the current one under load, and logs why', async () => {
    // Each a copy of build b with one thing wrong, and what the refusal must say.
    const firstFile = (tree: string) => {
      const dir = path.join(tmp, 'b', tree, 'NEX-GDDP', 'RCP85');
      return path.join(tree, 'NEX-GDDP', 'RCP85', fs.readdirSync(dir).sort()[0]!);
    };
    const halve = (file: string) => fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
    const broken: { name: string; damage: (dir: string) => void; reason: RegExp }[] = [
      { name: 'manifest only', damage: (dir) => keepOnly(dir, ['manifest.json']), reason: /No files found that match the pattern ".*catalog\// },
      { name: 'catalog file missing', damage: (dir) => fs.rmSync(path.join(dir, 'catalog', 'city_boundary.parquet')), reason: /city_boundary\.parquet/ },
      { name: 'catalog file empty', damage: (dir) => fs.truncateSync(path.join(dir, 'catalog', 'city.parquet'), 0), reason: /city\.parquet/ },
      { name: 'catalog file cut in half', damage: (dir) => halve(path.join(dir, 'catalog', 'map_cell.parquet')), reason: /map_cell\.parquet/ },
      { name: 'climate file missing', damage: (dir) => fs.rmSync(path.join(dir, firstFile('climate'))), reason: new RegExp(`${escape(firstFile('climate'))} is missing`) },
      { name: 'climate file truncated', damage: (dir) => halve(path.join(dir, firstFile('climate'))), reason: new RegExp(`${escape(firstFile('climate'))} is truncated`) },
      { name: 'climate file unreadable', damage: (dir) => fs.chmodSync(path.join(dir, firstFile('climate')), 0o000), reason: new RegExp(`${escape(firstFile('climate'))} is not readable \\(mode 000\\)`) },
      { name: 'summary file missing', damage: (dir) => fs.rmSync(path.join(dir, firstFile('monthly'))), reason: new RegExp(`${escape(firstFile('monthly'))} is missing`) },
      { name: 'summary file truncated', damage: (dir) => halve(path.join(dir, firstFile('ensemble'))), reason: new RegExp(`${escape(firstFile('ensemble'))} is truncated`) },
      { name: 'summary file unreadable', damage: (dir) => fs.chmodSync(path.join(dir, firstFile('ensemble_json')), 0o000), reason: new RegExp(`${escape(firstFile('ensemble_json'))} is not readable`) },
      { name: 'every file of a scenario and cell missing', damage: (dir) => { for (const t of ['climate', 'monthly', 'ensemble', 'ensemble_json']) fs.rmSync(path.join(dir, firstFile(t))); }, reason: /climate\/ holds \d+ cell files where the manifest says \d+/ },
      { name: 'manifest of an unknown format version', damage: (dir) => rewriteManifest(dir, { format_version: 99 }), reason: /format version 99, which this service cannot read/ },
      { name: 'manifest not JSON', damage: (dir) => fs.writeFileSync(path.join(dir, 'manifest.json'), '{"build_id": "cut'), reason: /cannot be read as JSON/ },
      { name: 'empty folder', damage: (dir) => keepOnly(dir, []), reason: /no complete data build \(no manifest\.json\)/ },
    ];
    for (const b of broken) {
      const dir = path.join(tmp, `broken-${b.name.replace(/\W+/g, '-')}`);
      fs.cpSync(path.join(tmp, 'b'), dir, { recursive: true });
      b.damage(dir);
    }

    repoint('a');
    const lines: Record<string, unknown>[] = [];
    const { base, token, readyId } = await serve('server-2.pid', lines);

    const statuses: number[] = [];
    const failures: string[] = [];
    let running = true;
    const client = async () => {
      while (running) {
        try {
          const r = await fetch(`${base}/api/climate-data/${NYC}/RCP85/indicator/frost_days/`, { headers: { authorization: `Token ${token}` } });
          await r.arrayBuffer();
          statuses.push(r.status);
        } catch (err) {
          failures.push(String(err));
        }
      }
    };
    const clients = Array.from({ length: 16 }, client);
    const refusals = () => lines.filter((l) => /the new data build was refused/.test(String(l.msg)));
    const cases = [...broken.map((b) => ({ name: b.name, target: `broken-${b.name.replace(/\W+/g, '-')}`, reason: b.reason })), { name: 'a link to nowhere', target: 'nowhere', reason: /does not exist/ }];
    for (const c of cases) {
      const before = refusals().length;
      const asked = statuses.length;
      repoint(c.target);
      process.kill(server!.pid!, 'SIGHUP');
      await until(`the refusal of ${c.name}`, async () => {
        if (server!.exitCode !== null || server!.signalCode !== null) throw new Error(`the server ended (${server!.exitCode ?? server!.signalCode}) when handed ${c.name}`);
        return refusals().length > before;
      }, 20_000);
      const refused = refusals()[before]!;
      expect(String(refused.err), c.name).toMatch(c.reason);
      expect(refused.build_id, c.name).toBe(buildId('a'));
      expect(await readyId(), c.name).toBe(buildId('a'));
      // The clients were answered meanwhile.
      await until(`answers after ${c.name}`, async () => statuses.length > asked + 16, 20_000);
    }
    running = false;
    await Promise.all(clients);
    expect(server!.exitCode).toBeNull();
    expect(failures).toEqual([]);
    expect(statuses.length).toBeGreaterThan(cases.length * 16);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    // A good build is still taken after all that.
    repoint('b');
    process.kill(server!.pid!, 'SIGHUP');
    await until('build b', async () => (await readyId()) === buildId('b'), 30_000);
    server!.kill('SIGTERM');
    await new Promise((r) => server!.once('exit', r));
  }, 240_000);
});

/** Removes everything in `dir` but the named entries. */
function keepOnly(dir: string, keep: string[]) {
  for (const entry of fs.readdirSync(dir)) if (!keep.includes(entry)) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
}

function rewriteManifest(dir: string, fields: Record<string, unknown>) {
  const file = path.join(dir, 'manifest.json');
  fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), ...fields }));
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * Starts the server on the build `current` names (into `server`), with an account that no
 * throttle stops, and waits until it serves build a.
 */
async function serve(pidFile: string, lines: Record<string, unknown>[]) {
  const port = await freePort();
  const env = { ...process.env, DATA_DIR: path.join(tmp, 'current'), ACCOUNTS_DB: path.join(tmp, 'accounts.duckdb'), TOKEN_SECRET: SECRET, PID_FILE: path.join(tmp, pidFile) };
  const made = execFileSync(process.execPath, [compiled('src/cli/user.ts'), '--email', 'reload@example.com', '--password', 'reload-password', '--burst-rate', '1000000/min', '--sustained-rate', '100000000/day'], { cwd: ROOT, env, encoding: 'utf8' });
  const token = made.trim().split('\n').pop()!;
  server = startServer(port, env, lines);
  const base = `http://127.0.0.1:${port}`;
  const readyId = async () => {
    const r = await fetch(`${base}/readyz`).catch(() => undefined);
    return r?.status === 200 ? ((await r.json()) as { build_id: string }).build_id : undefined;
  };
  await until('the server', async () => (await readyId()) !== undefined, 30_000);
  expect(await readyId()).toBe(buildId('a'));
  return { base, token, readyId };
}

/** The server as make run starts it, its JSON log lines collected in `lines`. */
function startServer(port: number, env: NodeJS.ProcessEnv, lines: Record<string, unknown>[]): ChildProcess {
  const child = spawn(process.execPath, [compiled('src/server.ts')], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buffered = '';
  child.stdout!.on('data', (d: Buffer) => {
    buffered += d.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const l of parts) if (l.startsWith('{')) lines.push(JSON.parse(l) as Record<string, unknown>);
  });
  return child;
}
