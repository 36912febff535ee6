import { createHash } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import h5wasm from 'h5wasm/node';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ROOT } from '../src/config.js';
import type { ExportJob } from '../src/export/exportStore.js';
import { startRedis, type RedisServer } from '../scripts/localServers/redis.js';
import { tempExportDir, testApp, type TestApp } from './helpers.js';

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

function startWorker(): { child: ChildProcess; exited: Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src', 'cli', 'exportWorker.ts')], {
    cwd: ROOT,
    env: { ...process.env, QUEUE_URL: redis.url, DATA_DIR: inject('dataDir'), EXPORT_DIR: dir, EXPORT_LOCK_MS: LOCK_MS },
    stdio: 'ignore',
  });
  workers.push(child);
  return { child, exited: new Promise((r) => child.once('exit', () => r())) };
}

const record = (id: string) => JSON.parse(fs.readFileSync(path.join(dir, 'jobs', `${id}.json`), 'utf8')) as ExportJob;
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
    expect(done.status, done.error ?? '').toBe('done');
    expect(done.files.map((f) => f.name)).toEqual(BODY.scenarios.map((s) => `NEX-GDDP-CMIP6_${s}_tasmax-tasmin-pr.nc`));
    expect(fs.readdirSync(folder).sort()).toEqual(done.files.map((f) => f.name).sort());
    for (const f of done.files) {
      const file = path.join(folder, f.name);
      expect(createHash('sha256').update(fs.readFileSync(file)).digest('hex')).toBe(f.sha256);
      const h5 = new h5wasm.File(file, 'r');
      try {
        expect((h5.get('tasmax') as InstanceType<typeof h5wasm.Dataset>).shape![0]).toBe((h5.get('model') as InstanceType<typeof h5wasm.Dataset>).shape![0]);
      } finally {
        h5.close();
      }
    }
    second.child.kill('SIGTERM');
    await second.exited;
  }, 120_000);
});
