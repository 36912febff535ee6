import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HostSlots } from '../archive/hostSlots.js';
import { DEFAULT_POLICY } from '../archive/retries.js';
import { DATASETS } from '../../reference/fixtures.js';
import { publisherFor } from '../fetchPublishers.js';
import { IngestError } from '../netcdf/ingestError.js';
import type { MapResult } from './ingestQueue.js';
import type { JobPlan } from './jobFolder.js';

/**
 * A queued fetch's download for one map task (make fetch with QUEUE_URL): file n of the job's plan,
 * brought whole and checked (md5, size, NetCDF; retried, resumed with Range within the task) into a
 * folder of this worker process's own, `DOWNLOAD_DIR/.queue/<job>/<n>/<host>-<pid>/`: no two
 * workers ever write one `.part`. A task handed on after its worker died (its lease expired) takes
 * over the folder the dead worker left when it can tell the worker is dead (the same host, its pid
 * no longer running) and resumes its part from there (the part is still checked as any resume is:
 * the same URL, size and md5, then whole); a part of a worker on another host, or of one that may
 * still run, is left alone and the file starts again in the new worker's folder. The folders of the
 * job go when it is published (removeJobDownloads).
 */
export async function fetchForMap(plan: JobPlan, n: number, log: (line: string) => void): Promise<{ file: string; fetched: NonNullable<MapResult['fetched']>; release(): void }> {
  const f = plan.fetch!;
  const file = f.files[n];
  if (!file || file.url !== plan.files[n]!.path) throw new IngestError(`job ${plan.job}'s plan lists no download for its file ${n} (${plan.files[n]?.path}): enqueue the fetch again`);
  const fixture = DATASETS.find((d) => d.name === plan.dataset);
  if (!fixture) throw new IngestError(`unknown dataset ${plan.dataset} in job ${plan.job}'s plan`);
  const engine = { slots: new HostSlots(f.concurrency), policy: { ...DEFAULT_POLICY, log } };
  const publisher = publisherFor(fixture, { [plan.dataset]: f.archiveUrl }, engine, {
    via: f.via,
    ...(f.ncssUrl ? { ncssUrl: f.ncssUrl } : {}),
    ...(f.bbox ? { bbox: f.bbox } : {}),
    points: f.points ?? [],
  });
  const own = taskFolder(path.join(jobDownloads(f.downloadDir, plan.job), String(n)), os.hostname(), process.pid, log);
  const d = await publisher.fetch(file, own);
  return {
    file: d.file,
    fetched: { url: file.url, bytes: d.bytes, md5: d.md5, checked: d.checked },
    release: () => {
      if (!f.keepDownloads) {
        fs.rmSync(d.file, { force: true });
        return;
      }
      // Kept where a single-process make fetch keeps its downloads: the publisher's path below DOWNLOAD_DIR.
      const kept = path.join(f.downloadDir, path.relative(own, d.file));
      fs.mkdirSync(path.dirname(kept), { recursive: true });
      fs.renameSync(d.file, kept);
    },
  };
}

/**
 * The folder task n's download goes to in this worker: its own, or the one a dead worker of the
 * same host left, renamed to this worker's (a rename: of two workers taking over one folder, one
 * gets it). Whether a worker on another host still runs cannot be told from here: its folder stays.
 */
export function taskFolder(dir: string, host: string, pid: number, log: (line: string) => void): string {
  const own = path.join(dir, `${host}-${pid}`);
  if (fs.existsSync(own)) return own;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return own;
  }
  for (const name of names) {
    const m = /^(.+)-(\d+)$/.exec(name);
    if (!m || m[1] !== host || Number(m[2]) === pid || running(Number(m[2]))) continue;
    try {
      fs.renameSync(path.join(dir, name), own);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    log(`taking over the download folder of worker ${m[2]} on ${host}, which no longer runs: its part is resumed once checked`);
    return own;
  }
  return own;
}

/** Whether a process of this host runs with that pid (EPERM: it does, as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const jobDownloads = (downloadDir: string, job: string) => path.join(downloadDir, '.queue', job);

/** The job's download folders, with whatever killed workers left in them. */
export function removeJobDownloads(plan: JobPlan): void {
  if (plan.fetch) fs.rmSync(jobDownloads(plan.fetch.downloadDir, plan.job), { recursive: true, force: true });
}
