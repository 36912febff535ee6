import { createHash } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import h5wasm from 'h5wasm/node';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ROOT } from '../src/config.js';
import type { ExportJob } from '../src/export/exportStore.js';
import { startRedis, type RedisServer } from '../scripts/localServers/redis.js';
import { tempExportDir, testApp, type TestApp } from './helpers.js';
import { compiled } from './support/compiled.js';

/**
 * Exports on the queue (QUEUE_URL: BullMQ on a real redis-server, workers as real processes of
 * `make export-worker`): the running limit per account (429 with Retry-After), cancelling a
 * queued export, and a worker killed mid-export: what it leaves claims nothing it did not finish,
 * and another worker runs the export again to the end.
 */

const LOCK_MS = '2000';
let redis: RedisServer;
let t: TestApp;
let dir: string;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
  dir = tempExportDir();
  t = await testApp({ THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '1000000/day', QUEUE_URL: redis.url, EXPORT_DIR: dir, EXPORT_MAX_RUNNING: '1' });
  await h5wasm.ready;
});

afterAll(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await redis?.close();
});

// A test that fails before it stops its workers would leave one running, to take the next test's
// export from the queue: every later test of the file then waited for a worker of its own in vain.
afterEach(async () => {
  const alive = workers.filter((w) => w.exitCode === null && w.signalCode === null);
  await Promise.all(alive.map((w) => new Promise((r) => (w.once('exit', r), w.kill('SIGKILL')))));
});

/** A worker process; `log` is what it wrote to stderr so far. */
function startWorker(exportDir = dir, env: Record<string, string> = {}): { child: ChildProcess; exited: Promise<void>; log: () => string } {
  const child = spawn(process.execPath, [compiled('src/cli/exportWorker.ts')], {
    cwd: ROOT,
    env: { ...process.env, QUEUE_URL: redis.url, DATA_DIR: inject('dataDir'), EXPORT_DIR: exportDir, EXPORT_LOCK_MS: LOCK_MS, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr!.on('data', (c: Buffer) => (log += c.toString('utf8')));
  workers.push(child);
  return { child, exited: new Promise((r) => child.once('exit', () => r())), log: () => log };
}

const record = (id: string, exportDir = dir) => JSON.parse(fs.readFileSync(path.join(exportDir, 'jobs', `${id}.json`), 'utf8')) as ExportJob;

/** Until the export runs with at least `files` whole files. */
async function runningWith(id: string, files: number, exportDir = dir): Promise<ExportJob> {
  for (;;) {
    const seen = record(id, exportDir);
    if (seen.status === 'running' && seen.files.length >= files) return seen;
    expect(seen.status, seen.error ?? '').not.toMatch(/done|failed|cancelled/);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function until(what: string, ok: () => boolean, ms = 60_000) {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const binary = (r: request.Response, cb: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  r.on('data', (c: Buffer) => chunks.push(c));
  r.on('end', () => cb(null, Buffer.concat(chunks)));
};
const auth = () => ({ Authorization: `Token ${t.token}` });
const BODY = { dataset: 'NEX-GDDP-CMIP6', scenarios: ['historical', 'ssp126', 'ssp245', 'ssp370', 'ssp585'], variables: ['tasmax', 'tasmin', 'pr'], area: { city: 5128581 }, format: 'netcdf' };

describe('exports on the queue', () => {
  it('EXPORT_MAX_RUNNING: one more than the limit is a 429 with Retry-After; a cancelled export frees its place', async () => {
    const first = await request(t.app).post('/api/export/').set(auth()).send(BODY).expect(202);
    expect(record(first.body.id).status).toBe('queued');
    const second = await request(t.app).post('/api/export/').set(auth()).send(BODY).expect(429);
    expect(second.headers['retry-after']).toBe('30');
    expect(second.body.detail).toMatch(/1 exports queued or running; the limit is 1 \(EXPORT_MAX_RUNNING\)/);
    await request(t.app).delete(first.body.url).set(auth()).expect(204);
    const cancelled = (await request(t.app).get(first.body.url).set(auth()).expect(200)).body;
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.files).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'files', first.body.id))).toBe(false);
  });

  it('a worker killed mid-export leaves no file claiming to be whole; another worker runs it again to the end', async () => {
    const { body } = await request(t.app).post('/api/export/').set(auth()).send(BODY).expect(202);
    const id = body.id as string;
    const first = startWorker();
    // Killed once the first of its five files is whole and the others are not.
    let seen: ExportJob;
    for (;;) {
      seen = record(id);
      if (seen.status === 'running' && seen.files.length >= 1) break;
      expect(seen.status, seen.error ?? '').not.toMatch(/done|failed/);
      await new Promise((r) => setTimeout(r, 5));
    }
    first.child.kill('SIGKILL');
    await first.exited;
    const left = record(id);
    expect(left.status).toBe('running');
    expect(left.files.length).toBeLessThan(5);
    // Every file under its own name is one the record lists, and its bytes are whole.
    const folder = path.join(dir, 'files', id);
    const named = fs.readdirSync(folder).filter((f) => !f.startsWith('.'));
    expect(named.sort()).toEqual(left.files.map((f) => f.name).sort());
    for (const f of left.files) expect(createHash('sha256').update(fs.readFileSync(path.join(folder, f.name))).digest('hex')).toBe(f.sha256);
    // Meanwhile the API shows the export as running, with only its whole files.
    const shown = (await request(t.app).get(`/api/export/${id}/`).set(auth()).expect(200)).body;
    expect(shown.status).toBe('running');

    const second = startWorker();
    let done: ExportJob;
    for (;;) {
      done = record(id);
      if (done.status !== 'running' && done.status !== 'queued') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // What both workers said (each run's start, a lease they could not renew): a failure here
    // once found a whole, checksummed file without tasmax, and these logs tell whether two runs
    // of the export overlapped.
    const logs = () => `first worker:\n${first.log()}\nsecond worker:\n${second.log()}`;
    expect(done.status, `${done.error ?? ''}\n${logs()}`).toBe('done');
    expect(done.files.map((f) => f.name)).toEqual(BODY.scenarios.map((s) => `NEX-GDDP-CMIP6_${s}_tasmax-tasmin-pr.nc`));
    expect(fs.readdirSync(folder).sort(), logs()).toEqual(done.files.map((f) => f.name).sort());
    for (const f of done.files) {
      const file = path.join(folder, f.name);
      expect(createHash('sha256').update(fs.readFileSync(file)).digest('hex'), logs()).toBe(f.sha256);
      const h5 = new h5wasm.File(file, 'r');
      try {
        expect(h5.keys(), `${f.name}\n${logs()}`).toContain('tasmax');
        expect((h5.get('tasmax') as InstanceType<typeof h5wasm.Dataset>).shape![0]).toBe((h5.get('model') as InstanceType<typeof h5wasm.Dataset>).shape![0]);
      } finally {
        h5.close();
      }
    }
    second.child.kill('SIGTERM');
    await second.exited;
  }, 120_000);

  it('a worker killed on every attempt: the export fails with a reason a user understands, and no file is left under its own name', async () => {
    const { body } = await request(t.app).post('/api/export/').set(auth()).send(BODY).expect(202);
    const id = body.id as string;
    const folder = path.join(dir, 'files', id);
    for (let attempt = 1; attempt <= 2; attempt++) {
      const worker = startWorker();
      // The second worker takes the task once the first one's lease (EXPORT_LOCK_MS) has run out.
      await until(`attempt ${attempt} to start`, () => worker.log().includes(`running ${id}`));
      // A new attempt starts from nothing; the record of the killed one says otherwise until then.
      await until(`attempt ${attempt} to start from nothing`, () => record(id).files.length === 0, 30_000);
      await runningWith(id, 1);
      worker.child.kill('SIGKILL');
      await worker.exited;
      // Killed: only whole files under their own names, each one the record lists.
      const left = record(id);
      expect(fs.readdirSync(folder).filter((f) => !f.startsWith('.')).sort()).toEqual(left.files.map((f) => f.name).sort());
    }
    // A third worker finds the task lost a second time: it fails, and its whole files go.
    const third = startWorker();
    await until('the export to fail', () => record(id).status === 'failed');
    const failed = (await request(t.app).get(`/api/export/${id}/`).set(auth()).expect(200)).body;
    expect(failed.status).toBe('failed');
    expect(failed.files).toEqual([]);
    expect(failed.error).toMatch(/^The export's worker stopped before it was done, on each of its attempts \(.*stalled.*\); nothing was kept\. Ask again/);
    expect(fs.readdirSync(folder).filter((f) => !f.startsWith('.'))).toEqual([]);
    third.child.kill('SIGTERM');
    await third.exited;
  }, 120_000);

  it('an export of EXPORT_MAX_VALUES values runs to the end on a worker whose runner has a 64 MB heap', async () => {
    const shared = tempExportDir();
    const body = { ...BODY, scenarios: ['ssp585'] };
    const tiny = await testApp({ THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '1000000/day', QUEUE_URL: redis.url, EXPORT_DIR: shared, EXPORT_MAX_VALUES: '1' });
    const refused = await request(tiny.app).post('/api/export/').set({ Authorization: `Token ${tiny.token}` }).send(body).expect(400);
    const values = Number(/holds up to ([\d,]+) values/.exec(refused.body.detail as string)![1]!.replaceAll(',', ''));
    const limited = await testApp({ THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '1000000/day', QUEUE_URL: redis.url, EXPORT_DIR: shared, EXPORT_MAX_VALUES: String(values) });
    const lauth = { Authorization: `Token ${limited.token}` };
    const { id } = (await request(limited.app).post('/api/export/').set(lauth).send(body).expect(202)).body as { id: string };
    const worker = startWorker(shared, { EXPORT_RUNNER_HEAP_MB: '64' });
    await until('the export to end', () => !['queued', 'running'].includes(record(id, shared).status), 90_000);
    const done = record(id, shared);
    expect(done.status, done.error ?? '').toBe('done');
    expect(done.plan.values).toBe(values);
    const file = path.join(shared, 'files', id, done.files[0]!.name);
    expect(createHash('sha256').update(fs.readFileSync(file)).digest('hex')).toBe(done.files[0]!.sha256);
    const h5 = new h5wasm.File(file, 'r');
    try {
      const tasmax = h5.get('tasmax') as InstanceType<typeof h5wasm.Dataset>;
      expect(tasmax.shape![0]).toBe((h5.get('model') as InstanceType<typeof h5wasm.Dataset>).shape![0]);
      expect(tasmax.metadata.chunks).toEqual([1, tasmax.shape![1], 1, 1]);
    } finally {
      h5.close();
    }
    worker.child.kill('SIGTERM');
    await worker.exited;
  }, 120_000);

  it('DELETE of an export a worker runs: the worker stops at its next chunk, its files go, the record stays cancelled and the place is free', async () => {
    const { body } = await request(t.app).post('/api/export/').set(auth()).send(BODY).expect(202);
    const id = body.id as string;
    const worker = startWorker();
    await runningWith(id, 1);
    await request(t.app).delete(`/api/export/${id}/`).set(auth()).expect(204);
    const atCancel = fs.readFileSync(path.join(dir, 'jobs', `${id}.json`), 'utf8');
    await until('the worker to stop the export', () => worker.log().includes(`${id}: cancelled`));
    expect(fs.readFileSync(path.join(dir, 'jobs', `${id}.json`), 'utf8')).toBe(atCancel);
    expect(record(id).status).toBe('cancelled');
    expect(fs.existsSync(path.join(dir, 'files', id))).toBe(false);
    // The account's one place (EXPORT_MAX_RUNNING=1) is free again; that export is cancelled while queued.
    const next = await request(t.app).post('/api/export/').set(auth()).send(BODY).expect(202);
    await request(t.app).delete(next.body.url).set(auth()).expect(204);
    worker.child.kill('SIGTERM');
    await worker.exited;
  }, 120_000);

  it('two replicas on one queue and EXPORT_DIR: concurrent POSTs at the limit are one 202 and one 429; an export asked of A is listed, polled, downloaded with Range and deleted through B', async () => {
    const shared = tempExportDir();
    const a = await testApp({ THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '1000000/day', QUEUE_URL: redis.url, EXPORT_DIR: shared, EXPORT_MAX_RUNNING: '1' });
    // The same accounts, so the same account, as replicas share ACCOUNTS_URL.
    const b = await testApp({ THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '1000000/day', QUEUE_URL: redis.url, EXPORT_DIR: shared, EXPORT_MAX_RUNNING: '1', ACCOUNTS_DB: a.config.ACCOUNTS_DB });
    const small = { dataset: 'NEX-GDDP-CMIP6', scenarios: ['ssp245'], models: ['ACCESS-CM2'], years: '2050', variables: ['pr'], locations: [{ city: 5128581 }], format: 'csv' };
    const answers = await Promise.all([a, b].map((r) => request(r.app).post('/api/export/').set({ Authorization: `Token ${r.token}` }).send(small)));
    expect(answers.map((r) => r.status).sort()).toEqual([202, 429]);
    const refused = answers.find((r) => r.status === 429)!;
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.body.detail).toMatch(/1 exports queued or running; the limit is 1 \(EXPORT_MAX_RUNNING\)/);
    // From here on: asked of A, followed through B.
    const accepted = answers.find((r) => r.status === 202)!;
    await request(b.app).delete(accepted.body.url).set({ Authorization: `Token ${b.token}` }).expect(204);
    const viaA = await request(a.app).post('/api/export/').set({ Authorization: `Token ${a.token}` }).send(small).expect(202);
    const bAuth = { Authorization: `Token ${b.token}` };
    const listed = (await request(b.app).get('/api/export/').set(bAuth).expect(200)).body.results as { id: string; status: string }[];
    expect(listed.find((j) => j.id === viaA.body.id)?.status).toBe('queued');
    const worker = startWorker(shared);
    let job: { status: string; files: { name: string; url: string; bytes: number; sha256: string }[]; error: string | null };
    for (;;) {
      job = (await request(b.app).get(viaA.body.url).set(bAuth).expect(200)).body;
      if (job.status !== 'queued' && job.status !== 'running') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(job.status, job.error ?? '').toBe('done');
    const [file] = job.files;
    const whole = (await request(b.app).get(file!.url).set(bAuth).buffer(true).parse(binary).expect(200)).body as Buffer;
    expect(createHash('sha256').update(whole).digest('hex')).toBe(file!.sha256);
    const part = await request(b.app).get(file!.url).set(bAuth).set('Range', 'bytes=5-24').buffer(true).parse(binary).expect(206);
    expect(part.headers['content-range']).toBe(`bytes 5-24/${whole.length}`);
    expect((part.body as Buffer).equals(whole.subarray(5, 25))).toBe(true);
    await request(b.app).delete(viaA.body.url).set(bAuth).expect(204);
    await request(a.app).get(viaA.body.url).set({ Authorization: `Token ${a.token}` }).expect(404);
    expect(fs.existsSync(path.join(shared, 'files', viaA.body.id))).toBe(false);
    worker.child.kill('SIGTERM');
    await worker.exited;
    await Promise.all([a.exports.scheduler.close(), b.exports.scheduler.close()]);
  }, 120_000);
});
