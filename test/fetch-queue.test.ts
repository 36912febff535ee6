import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../scripts/localServers/ports.js';
import { startRedis, type RedisServer } from '../scripts/localServers/redis.js';
import { ROOT } from '../src/config.js';
import { fetchRegion, recordFile, type FetchRecord } from '../src/ingest/fetchRegion.js';
import { connectionOf, mapTaskId, QUEUE_NAME, type MapResult } from '../src/ingest/queue/ingestQueue.js';
import { copyOfTestData } from './ingest-support.js';
import { BOX, expectSamePartitions, MODELS, writeFetchArchive } from './support/fetchArchive.js';
import { startPublisherServer, type PublisherServer } from './support/publisherServer.js';
import { compiled } from './support/compiled.js';

/**
 * make fetch with QUEUE_URL (a real redis-server, workers as real processes): the map tasks of the
 * queued ingest download, check and stage their own file, so the workers fetch in parallel; the
 * published build holds the values of a one-process make fetch of the same selection, and its fetch
 * record. A worker killed mid-download leaves its half-written file in a folder of its own, which
 * no retry trusts: the task goes to another worker, which downloads the file whole again.
 */
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-fetch-queue-'));
const archiveRoot = path.join(tmpRoot, 'archive');
const UKESM = 'NEX-GDDP-CMIP6/UKESM1-0-LL/ssp245/r1i1p1f2/tasmax/tasmax_day_UKESM1-0-LL_ssp245_r1i1p1f2_gn_2052.nc';
const LOCK_MS = '4000';

let redis: RedisServer;
let queue: Queue;
let s3: PublisherServer;
let single: string;
const workers: ChildProcess[] = [];

const expectSameAsSingle = (dir: string) => expectSamePartitions(dir, single);

/** A served build behind a symlink, as the queue publishes by repointing it. */
function servedBuild(name: string): string {
  const link = path.join(tmpRoot, name, 'current');
  fs.symlinkSync(copyOfTestData(path.join(tmpRoot, name), 'base'), link);
  return link;
}

/**
 * The files under dir, as the workers leave them at this moment. They rename and remove files while
 * it looks (a .part becomes its file): what goes between the listing and the stat is left out, and a
 * folder that goes mid-listing gives none, for the caller's next look.
 */
function filesUnder(dir: string): string[] {
  try {
    return fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => fs.statSync(path.join(dir, f), { throwIfNoEntry: false })?.isFile() === true);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

function startWorker(dataDir: string) {
  const child = spawn(process.execPath, [compiled('src/cli/ingestWorker.ts')], {
    cwd: ROOT,
    env: { ...process.env, QUEUE_URL: redis.url, DATA_DIR: dataDir, EXIT_WHEN_IDLE: '1', INGEST_LOCK_MS: LOCK_MS },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  workers.push(child);
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, exited, err: () => err };
}

/** make fetch ... QUEUE_URL=...: the job id it prints. */
function enqueueFetch(dataDir: string, downloads: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [compiled('src/cli/fetch.ts'), '--dataset=NEX-GDDP-CMIP6', `--bbox=${BOX.join(',')}`, `--models=${MODELS.join(',')}`, '--scenarios=ssp245', '--variables=tasmax,pr', '--years=2052', '--dry-run=', '--via=', '--points=', '--range-cells='],
      { cwd: ROOT, env: { ...process.env, QUEUE_URL: redis.url, DATA_DIR: dataDir, ARCHIVE_URL_NEX_GDDP_CMIP6: s3.url, DOWNLOAD_DIR: downloads, FETCH_CONCURRENCY: '2' } },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${err.message}\n${stderr}`));
        else resolve(stdout.trim());
      },
    );
  });
}

beforeAll(async () => {
  redis = await startRedis();
  queue = new Queue(QUEUE_NAME, { connection: connectionOf(redis.url) });
  await writeFetchArchive(archiveRoot, false);
  s3 = await startPublisherServer(archiveRoot);
  // The same selection fetched in one process, into a copy of the same build.
  single = copyOfTestData(tmpRoot, 'single');
  await fetchRegion({
    dataDir: single, dataset: 'NEX-GDDP-CMIP6', bbox: BOX, models: MODELS, scenarios: ['ssp245'], variables: ['tasmax', 'pr'], years: [2052, 2052],
    archiveUrls: { 'NEX-GDDP-CMIP6': s3.url }, concurrency: 2, keepDownloads: false, downloadDir: path.join(tmpRoot, 'dl-single'), statedRateMbps: 20, log: () => {},
  });
}, 300_000);

afterAll(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await queue?.close();
  await redis?.close();
  await s3?.close();
  fs.rmSync(tmpRoot, { recursive: true, force: true });
});

describe('make fetch with QUEUE_URL', () => {
  it('two workers download, check and stage the files in their map tasks and publish the one-process fetch\'s values and record', async () => {
    const current = servedBuild('queued');
    const downloads = path.join(tmpRoot, 'dl-queued');
    const base = fs.realpathSync(current);
    const before = s3.served.length;
    const job = await enqueueFetch(current, downloads);
    expect(job).toMatch(/^ingest-[0-9a-z]+-[0-9a-f]{6}$/);
    // Enqueued, not fetched: nothing downloaded yet.
    expect(s3.served.length).toBe(before);
    const [a, b] = [startWorker(current), startWorker(current)];
    expect(await a.exited, a.err()).toBe(0);
    expect(await b.exited, b.err()).toBe(0);

    const published = fs.realpathSync(current);
    expect(published).not.toBe(base);
    await expectSameAsSingle(published);
    // Each file downloaded once, by the map tasks; each checked against the md5 index.
    expect(s3.served.slice(before).map((s) => s.status)).toEqual(Array(6).fill(200));
    const maps = Object.values(await (await queue.getJob(job))!.getChildrenValues<MapResult>()).filter((r) => r.kind === 'map');
    expect(maps).toHaveLength(6);
    for (const m of maps) expect(m.fetched).toMatchObject({ url: m.file, checked: true });
    // The record of the sources is in the published build, not in the one it replaced.
    const record = JSON.parse(fs.readFileSync(recordFile(published, 'NEX-GDDP-CMIP6'), 'utf8')) as FetchRecord;
    expect(record.files.map((f) => f.path).sort()).toEqual(maps.map((m) => m.file.slice(s3.url.length + 1)).sort());
    for (const f of record.files) {
      expect(f.md5_checked).toBe(true);
      expect(f.bytes).toBe(fs.statSync(path.join(archiveRoot, f.path)).size);
    }
    expect(fs.existsSync(recordFile(base, 'NEX-GDDP-CMIP6'))).toBe(false);
    // Every download deleted once staged, the workers' folders with them.
    expect(filesUnder(downloads)).toEqual([]);
  }, 300_000);

  it('a worker killed mid-download: its half-written file is never trusted, another worker downloads the file whole, the values are the same', async () => {
    const current = servedBuild('killed');
    const downloads = path.join(tmpRoot, 'dl-killed');
    const before = s3.served.length;
    s3.fault(UKESM, { kind: 'stall', after: 4000 });
    const job = await enqueueFetch(current, downloads);
    const a = startWorker(current);
    const b = startWorker(current);
    // The worker whose download of UKESM1-0-LL's file stalled: its own folder names its pid.
    let part = '';
    await until('a worker to stall with 4,000 bytes of the file on disk', async () => {
      part = filesUnder(path.join(downloads, '.queue', job)).find((f) => f.endsWith(`${path.basename(UKESM)}.part`)) ?? '';
      return part !== '' && (fs.statSync(path.join(downloads, '.queue', job, part), { throwIfNoEntry: false })?.size ?? 0) >= 4000;
    }, 120_000);
    const pid = Number(/^[^/]+-(\d+)\//.exec(part)![1]);
    const [victim, other] = a.child.pid === pid ? [a, b] : [b, a];
    expect(victim.child.pid).toBe(pid);
    victim.child.kill('SIGKILL');
    await victim.exited;
    const again = startWorker(current);
    expect(await other.exited, other.err()).toBe(0);
    expect(await again.exited, again.err()).toBe(0);

    // Downloaded again from its first byte (not resumed from the dead worker's part), by another worker.
    expect(s3.served.slice(before).filter((s) => s.key === UKESM).map((s) => [s.status, s.range ?? null, s.fault ?? null])).toEqual([[200, null, 'stall'], [200, null, null]]);
    const n = JSON.parse(fs.readFileSync(path.join(path.dirname(fs.realpathSync(current)), 'ingest-jobs', job, 'plan.json'), 'utf8')).fetch.files.findIndex((f: { path: string }) => f.path === UKESM);
    const task = (await queue.getJob(mapTaskId(job, n)))!;
    expect(await task.getState()).toBe('completed');
    expect(task.attemptsStarted).toBeGreaterThanOrEqual(2);
    await expectSameAsSingle(fs.realpathSync(current));
    // The dead worker's part went with the job's download folders when it was published.
    expect(filesUnder(downloads)).toEqual([]);
  }, 300_000);
});
