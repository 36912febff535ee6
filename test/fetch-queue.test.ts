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
import { taskFolder } from '../src/ingest/queue/fetchTask.js';
import { copyOfTestData } from './ingest-support.js';
import { BOX, expectSamePartitions, MODELS, writeFetchArchive } from './support/fetchArchive.js';
import { startPublisherServer, type PublisherServer } from './support/publisherServer.js';
import { compiled } from './support/compiled.js';

/**
 * make fetch with QUEUE_URL (a real redis-server, workers as real processes): the map tasks of the
 * queued ingest download, check and stage their own file, so the workers fetch in parallel; the
 * published build holds the values of a one-process make fetch of the same selection, and its fetch
 * record. A worker killed mid-download leaves its half-written file in a folder of its own: the
 * task goes to another worker, which takes the folder over when it can tell the first is dead (the
 * same host, its pid gone) and resumes the part with Range, and otherwise starts the file again.
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

/** The files under dir; looked at only once every worker has exited, when nothing renames or removes them any more. */
const filesUnder = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => fs.statSync(path.join(dir, f)).isFile()) : []);

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

  it('a worker killed mid-download: another worker of the host takes over its part and resumes it with Range, the values are the same', async () => {
    const current = servedBuild('killed');
    const downloads = path.join(tmpRoot, 'dl-killed');
    const before = s3.served.length;
    s3.fault(UKESM, { kind: 'stall', after: 4000 });
    const job = await enqueueFetch(current, downloads);
    const a = startWorker(current);
    const b = startWorker(current);
    // The worker that took UKESM1-0-LL's map task says so (its pid and the task's number); its part is
    // then at a path known in advance, looked at once the server has sent the 4,000 bytes and stalled:
    // no listing of folders the other worker renames files in.
    let victim: ReturnType<typeof startWorker> | undefined;
    let n = -1;
    await until('a worker to start the map task of UKESM1-0-LL\'s tasmax', async () => {
      for (const w of [a, b]) {
        const m = new RegExp(`started map ${job}\\.map\\.(\\d+) ${path.basename(UKESM).replace(/\./g, '\\.')} `).exec(w.err());
        if (m) [victim, n] = [w, Number(m[1])];
      }
      return victim !== undefined;
    }, 120_000);
    const other = victim === a ? b : a;
    await s3.stalled(UKESM);
    const part = path.join(downloads, '.queue', job, String(n), `${os.hostname()}-${victim!.child.pid}`, `${UKESM}.part`);
    await until('the stalled 4,000 bytes to be on disk', async () => (fs.statSync(part, { throwIfNoEntry: false })?.size ?? 0) >= 4000, 120_000);
    victim!.child.kill('SIGKILL');
    await victim!.exited;
    const again = startWorker(current);
    expect(await other.exited, other.err()).toBe(0);
    expect(await again.exited, again.err()).toBe(0);

    // Resumed by another worker of this host from the dead worker's part: the rest asked for with Range.
    expect(s3.served.slice(before).filter((s) => s.key === UKESM).map((s) => [s.status, s.range ?? null, s.fault ?? null])).toEqual([[200, null, 'stall'], [206, 'bytes=4000-', null]]);
    expect(other.err() + again.err()).toMatch(new RegExp(`taking over the download folder of worker ${victim!.child.pid} on \\S+, which no longer runs`));
    const task = (await queue.getJob(mapTaskId(job, n)))!;
    expect(await task.getState()).toBe('completed');
    expect(task.attemptsStarted).toBeGreaterThanOrEqual(2);
    await expectSameAsSingle(fs.realpathSync(current));
    // The dead worker's folder went with the job's download folders when it was published.
    expect(filesUnder(downloads)).toEqual([]);
  }, 300_000);

  it('a task takes over only the folder of a worker it can tell is dead: of this host, its pid not running', async () => {
    const dir = path.join(tmpRoot, 'claims', '0');
    const host = os.hostname();
    const dead = spawn(process.execPath, ['-e', '']);
    const deadPid = await new Promise<number>((resolve) => dead.once('exit', () => resolve(dead.pid!)));
    const put = (name: string) => {
      fs.mkdirSync(path.join(dir, name, 'NEX-GDDP-CMIP6'), { recursive: true });
      fs.writeFileSync(path.join(dir, name, 'NEX-GDDP-CMIP6', 'x.nc.part'), name);
    };
    // Another host's worker (alive or not, it cannot be told from here) and a running process of this host.
    put('elsewhere-1234');
    put(`${host}-${process.ppid}`);
    const lines: string[] = [];
    const own = path.join(dir, `${host}-4194304`);
    expect(taskFolder(dir, host, 4194304, (l) => lines.push(l))).toBe(own);
    expect(fs.existsSync(own)).toBe(false);
    expect(fs.readdirSync(dir).sort()).toEqual(['elsewhere-1234', `${host}-${process.ppid}`].sort());
    // A worker of this host that no longer runs: its folder becomes this worker's, its part with it.
    put(`${host}-${deadPid}`);
    expect(taskFolder(dir, host, 4194304, (l) => lines.push(l))).toBe(own);
    expect(fs.readFileSync(path.join(own, 'NEX-GDDP-CMIP6', 'x.nc.part'), 'utf8')).toBe(`${host}-${deadPid}`);
    expect(fs.existsSync(path.join(dir, `${host}-${deadPid}`))).toBe(false);
    expect(lines).toEqual([`taking over the download folder of worker ${deadPid} on ${host}, which no longer runs: its part is resumed once checked`]);
  });
});
