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
 * folder of this worker process's own, `DOWNLOAD_DIR/.queue/<job>/<host>-<pid>/`. No two workers
 * ever write one `.part`, and a worker killed mid-download leaves its part where no other worker
 * looks: the task, handed to another worker, downloads the file again from its start. The folders
 * of the job go when it is published (removeJobDownloads).
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
  const own = path.join(jobDownloads(f.downloadDir, plan.job), `${os.hostname()}-${process.pid}`);
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

export const jobDownloads = (downloadDir: string, job: string) => path.join(downloadDir, '.queue', job);

/** The job's download folders, with whatever killed workers left in them. */
export function removeJobDownloads(plan: JobPlan): void {
  if (plan.fetch) fs.rmSync(jobDownloads(plan.fetch.downloadDir, plan.job), { recursive: true, force: true });
}
