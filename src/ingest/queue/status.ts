import path from 'node:path';
import type { Job, Queue } from 'bullmq';
import { mapTaskId, publishData, reduceTaskId, type MapResult, type PublishResult, type ReduceResult } from './ingestQueue.js';

export interface TaskView {
  id: string;
  kind: 'map' | 'reduce';
  /** The file (map) or the range of cells (reduce). */
  what: string;
  state: string;
  attempts: number;
  seconds?: number;
  failedReason?: string;
}

export interface JobStatus {
  job: string;
  dataset: string;
  /** waiting (maps to do), reducing, publishing, published, unchanged (published nothing: no change), failed. */
  state: 'mapping' | 'reducing' | 'publishing' | 'published' | 'unchanged' | 'failed';
  maps: { done: number; total: number };
  reduces: { done: number; total: number | undefined };
  valuesDecoded: number;
  valuesStored: number;
  bytesRead: number;
  /** Values decoded per second of the map stage's wall time (first map started to last finished). */
  decodedPerSecond: number;
  storedPerSecond: number;
  /** Wall seconds of each stage: its first task started to its last finished. */
  mapSeconds: number;
  reduceSeconds: number;
  slowest: TaskView[];
  failures: TaskView[];
  publish?: PublishResult;
  failedReason?: string;
}

const SLOWEST = 5;

/** The state of an ingest job from its tasks in the queue; undefined when the queue has no such job. */
export async function jobStatus(queue: Queue, id: string): Promise<JobStatus | undefined> {
  const root = await queue.getJob(id);
  if (!root || root.name !== 'publish') return undefined;
  const d = publishData.parse(root.data);
  const maps = await Promise.all(Array.from({ length: d.files }, (_, n) => queue.getJob(mapTaskId(id, n))));
  const reduces = d.reduces === undefined ? [] : await Promise.all(Array.from({ length: d.reduces }, (_, n) => queue.getJob(reduceTaskId(id, n))));
  const views = async (jobs: (Job | undefined)[], kind: 'map' | 'reduce') =>
    Promise.all(
      jobs.filter((j): j is Job => j !== undefined).map(async (j): Promise<TaskView> => ({
        id: j.id!,
        kind,
        what: kind === 'map' ? String(j.data.file) : `range ${String(j.data.n)} of the cells`,
        state: await j.getState(),
        attempts: j.attemptsMade,
        ...(j.processedOn && j.finishedOn ? { seconds: (j.finishedOn - j.processedOn) / 1000 } : {}),
        ...(j.failedReason ? { failedReason: j.failedReason } : {}),
      })),
    );
  const mapViews = await views(maps, 'map');
  const reduceViews = await views(reduces, 'reduce');
  const mapResults = maps.map((j) => j?.returnvalue as MapResult | undefined).filter((r): r is MapResult => r?.kind === 'map');
  const reduceResults = reduces.map((j) => j?.returnvalue as ReduceResult | undefined).filter((r): r is ReduceResult => r?.kind === 'reduce');
  const sum = (f: (r: MapResult) => number) => mapResults.reduce((n, r) => n + f(r), 0);
  const span = (jobs: (Job | undefined)[]) => {
    const starts = jobs.flatMap((j) => (j?.processedOn ? [j.processedOn] : []));
    const ends = jobs.flatMap((j) => (j?.finishedOn && j.returnvalue ? [j.finishedOn] : []));
    return starts.length > 0 && ends.length > 0 ? (Math.max(...ends) - Math.min(...starts)) / 1000 : 0;
  };
  const mapSeconds = span(maps);
  const rootState = await root.getState();
  const publish = rootState === 'completed' ? (root.returnvalue as PublishResult) : undefined;
  const failures = [...mapViews, ...reduceViews].filter((t) => t.failedReason !== undefined && (t.state === 'failed' || t.attempts > 0));
  const state: JobStatus['state'] =
    rootState === 'failed' ? 'failed'
    : publish ? (publish.published ? 'published' : 'unchanged')
    : d.step === 'reduce' ? 'mapping'
    : reduceResults.length < (d.reduces ?? 0) ? 'reducing'
    : 'publishing';
  return {
    job: id,
    dataset: d.dataset,
    state,
    maps: { done: mapResults.length, total: d.files },
    reduces: { done: reduceResults.length, total: d.reduces },
    valuesDecoded: sum((r) => r.valuesDecoded),
    valuesStored: sum((r) => r.valuesStored),
    bytesRead: sum((r) => r.bytes),
    decodedPerSecond: mapSeconds > 0 ? sum((r) => r.valuesDecoded) / mapSeconds : 0,
    storedPerSecond: mapSeconds > 0 ? sum((r) => r.valuesStored) / mapSeconds : 0,
    mapSeconds,
    reduceSeconds: span(reduces),
    slowest: [...mapViews, ...reduceViews].filter((t) => t.seconds !== undefined).sort((a, b) => b.seconds! - a.seconds!).slice(0, SLOWEST),
    failures,
    ...(publish ? { publish } : {}),
    ...(root.failedReason ? { failedReason: root.failedReason } : {}),
  };
}

const n = (x: number) => Math.round(x).toLocaleString('en-US');

/** The status as make ingest-status prints it. */
export function formatStatus(s: JobStatus): string {
  const lines = [
    `job ${s.job} (${s.dataset}): ${s.state}`,
    `  map (read and stage each file): ${s.maps.done}/${s.maps.total} done; ${n(s.valuesDecoded)} values decoded (${n(s.decodedPerSecond)}/s), ` +
      `${n(s.valuesStored)} stored (${n(s.storedPerSecond)}/s), ${(s.bytesRead / 1e6).toFixed(1)} MB read` + (s.mapSeconds > 0 ? ` in ${s.mapSeconds.toFixed(1)} s` : ''),
    `  reduce (write each range of cells): ${s.reduces.total === undefined ? 'planned once every file is staged' : `${s.reduces.done}/${s.reduces.total} done`}` +
      (s.reduceSeconds > 0 ? `, ${s.reduceSeconds.toFixed(1)} s` : ''),
  ];
  if (s.slowest.length > 0) {
    lines.push('  slowest tasks:');
    for (const t of s.slowest) lines.push(`    ${t.seconds!.toFixed(2)} s  ${t.kind} ${t.kind === 'map' ? path.basename(t.what) : t.what}`);
  }
  for (const t of s.failures) {
    lines.push(`  ${t.state === 'failed' ? 'FAILED' : 'retried'}: ${t.kind} ${t.what} (${t.attempts} attempt${t.attempts === 1 ? '' : 's'}): ${t.failedReason}`);
  }
  if (s.publish?.published) {
    lines.push(
      `  published build ${s.publish.build_id} (${s.publish.build}), replacing ${s.publish.previous_build_id}: ${s.publish.partitions} partitions ` +
        `(${s.publish.partitionsChanged} changed), ${s.publish.newCells} new map cells, ${s.publish.cellsWithData} cells with data. ` +
        'Run make reload to make running servers serve it.',
    );
  } else if (s.publish) {
    lines.push(`  nothing changed: build ${s.publish.build_id} stays`);
  }
  if (s.state === 'failed') {
    const failed = s.failures.filter((t) => t.state === 'failed');
    lines.push(
      failed.length > 0
        ? `  The job stopped: ${failed.map((t) => (t.failedReason!.includes(t.what) ? t.failedReason : `${t.kind} ${t.what}: ${t.failedReason}`)).join('; ')}.`
        : `  The job stopped: ${s.failedReason ?? 'a task failed'}.`,
      '  Nothing was published: servers keep serving the current build. Fix or remove the file named (or what the reason says), then run make ingest-enqueue again.',
    );
  }
  return lines.join('\n');
}
