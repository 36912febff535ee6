import fs from 'node:fs';
import path from 'node:path';
import { WaitingChildrenError, type Job, type Queue } from 'bullmq';
import { DATASETS } from '../../reference/fixtures.js';
import { IngestError } from '../netcdf/ingestError.js';
import { openCatalogDb, publishIngest, reduceScenarios } from '../netcdf/ingest.js';
import { cellsWithData, Reducer } from '../netcdf/reduce.js';
import { cellsOfRange, rangeCount } from '../netcdf/cellRanges.js';
import { historicRanges } from '../summaries.js';
import { linkBuild, repoint, resetCatalog, resetCells } from './buildLinks.js';
import { JobFolder, type JobPlan } from './jobFolder.js';
import { removeOldBuilds } from './oldBuilds.js';
import { StageThread } from './stageThread.js';
import { fetchForMap, removeJobDownloads } from './fetchTask.js';
import { writeFetchRecord } from '../fetchRecord.js';
import { regionOf } from '../fetchRegion.js';
import {
  mapData, publishData, reduceData, reduceTaskId, TASK_OPTIONS,
  type MapResult, type PublishResult, type ReduceData, type ReduceResult,
} from './ingestQueue.js';

/**
 * What a worker does with each task of an ingest job. Every task can be run again from the start
 * after a worker was killed in it (BullMQ hands a task whose lock expired to another worker): a
 * map task's staged file appears whole or not at all; a reduce task first puts its cells' files
 * back as the served build has them; the publish task puts the catalog and manifest back first.
 */
export class IngestTasks {
  private readonly reader = new StageThread();

  constructor(
    private readonly queue: Queue,
    private readonly log: (line: string) => void,
  ) {}

  close(): Promise<void> {
    return this.reader.close();
  }

  run(job: Job, token: string | undefined): Promise<MapResult | ReduceResult | PublishResult | undefined> {
    switch (job.name) {
      case 'map':
        return this.map(job);
      case 'reduce':
        return this.reduce(job);
      case 'publish':
        return this.publish(job, token);
      default:
        throw new Error(`unknown task ${job.name} (job ${job.id}): a worker of another version of the service?`);
    }
  }

  /** Why the job's tasks need not run any more (it failed), or undefined. */
  private async stopped(jobId: string): Promise<string | undefined> {
    const root = await this.queue.getJob(jobId);
    if (!root) return `job ${jobId} was removed`;
    return (await root.isFailed()) ? `job ${jobId} failed` : undefined;
  }

  private async map(job: Job): Promise<MapResult> {
    const d = mapData.parse(job.data);
    const stop = await this.stopped(d.job);
    if (stop) return { kind: 'map', file: d.file, bytes: 0, stagedBytes: 0, valuesDecoded: 0, valuesRead: 0, valuesStored: 0, resumed: false, skipped: stop };
    const folder = new JobFolder(d.folder);
    const plan = folder.read();
    const key = plan.files[d.n]!;
    const done = folder.stagedParts(plan, d.n);
    if (!plan.fetch) {
      const st = fs.statSync(key.path, { throwIfNoEntry: false });
      if (!st) throw new IngestError(`${key.path}: no such file (was it removed after the job was enqueued, or is SRC not mounted at the same path on this worker?)`);
      if (st.size !== key.size || st.mtimeMs !== key.mtime) throw new IngestError(`${key.path}: changed since the job was enqueued (size or modification time); enqueue the ingest again`);
    }
    // A queued fetch's task downloads its file first, unless an earlier run of it staged the file already.
    const remote = plan.fetch && !done ? await fetchForMap(plan, d.n, (l) => this.log(`job ${d.job} file ${d.n}: ${l}`)) : undefined;
    const meta = done
      ? { ...done[0]!.meta, stagedBytes: done.reduce((n, p) => n + fs.statSync(p.path).size, 0) }
      : await this.reader.stage({ folder: d.folder, n: d.n, ...(remote ? { local: remote.file } : {}) });
    remote?.release();
    return {
      kind: 'map',
      file: key.path,
      bytes: key.size,
      stagedBytes: meta.stagedBytes,
      valuesDecoded: meta.valuesDecoded,
      valuesRead: meta.valuesRead,
      valuesStored: (meta.cellsInFile - meta.cellsEmpty) * meta.days.length,
      resumed: done !== undefined,
      ...(remote ? { fetched: remote.fetched } : {}),
    };
  }

  private async reduce(job: Job): Promise<ReduceResult> {
    const d = reduceData.parse(job.data);
    const stop = await this.stopped(d.job);
    if (stop) return { kind: 'reduce', cells: 0, parts: 0, stagedBytesRead: 0, withData: [], partitions: 0, changed: 0, summaries: 0, skipped: stop };
    const folder = new JobFolder(d.folder);
    const plan = folder.read();
    const parts = folder.openRange(plan, d.n);
    const bytesRead = () => parts.reduce((n, p) => n + p.bytesRead, 0);
    // A range of sea cells (or of cells no file covers) writes nothing.
    if (cellsWithData(parts).length === 0) return { kind: 'reduce', cells: 0, parts: parts.length, stagedBytesRead: bytesRead(), withData: [], partitions: 0, changed: 0, summaries: 0 };
    const scenarios = reduceScenarios(datasetOf(plan));
    resetCells(plan.base, plan.next, plan.dataset, scenarios, Array.from(cellsOfRange(plan.cells, d.n, plan.rangeCells)));
    const reducer = await openReducer(plan);
    try {
      const r = await reducer.reduceRange(parts);
      return { kind: 'reduce', cells: r.cells, parts: r.parts, stagedBytesRead: r.bytesRead, withData: r.withData, partitions: r.partitions, changed: r.changed, summaries: r.summaries };
    } finally {
      await reducer.close();
    }
  }

  private async publish(job: Job, token: string | undefined): Promise<PublishResult | undefined> {
    const d = publishData.parse(job.data);
    const folder = new JobFolder(d.folder);
    const plan = folder.read();
    if (d.step === 'reduce') {
      // Every file is staged: the new build starts as links to the served one, then one reduce
      // task per range of cells (ids fixed by the range's number, so running this again adds none
      // twice). No staged part is read here: each is read by its range's task only.
      const linked = `${folder.dir}/linked`;
      if (!fs.existsSync(linked)) {
        await linkBuild(plan.base, plan.next);
        fs.writeFileSync(linked, `${plan.next}\n`);
      }
      const ranges = rangeCount(plan.cells.length, plan.rangeCells);
      for (let n = 0; n < ranges; n++) {
        await this.queue.add('reduce', { job: d.job, folder: d.folder, n } satisfies ReduceData, {
          ...TASK_OPTIONS,
          jobId: reduceTaskId(d.job, n),
          parent: { id: job.id!, queue: job.queueQualifiedName },
        });
      }
      await job.updateData({ ...d, step: 'publish', reduces: ranges });
      this.log(`job ${d.job}: every file staged; ${ranges} reduce tasks added (one per range of ${plan.rangeCells} target cells)`);
      if (await job.moveToWaitingChildren(token!)) throw new WaitingChildrenError();
    }
    return this.publishBuild(job, plan, folder);
  }

  /** The catalog and manifest of the new build, then DATA_DIR repointed to it (or the new build dropped when nothing changed). */
  private async publishBuild(job: Job, plan: JobPlan, folder: JobFolder): Promise<PublishResult> {
    // The result is written before DATA_DIR is repointed and kept once it is: a run after a kill
    // between the two finishes the first one's work.
    const pending = `${folder.resultFile}.pending`;
    if (fs.existsSync(folder.resultFile)) return JSON.parse(fs.readFileSync(folder.resultFile, 'utf8')) as PublishResult;
    if (fs.existsSync(pending)) {
      const was = JSON.parse(fs.readFileSync(pending, 'utf8')) as PublishResult;
      if (!was.published || fs.realpathSync(plan.dataDir) === plan.next) return await this.finish(plan, folder, pending);
    }
    const children = Object.values(await job.getChildrenValues<MapResult | ReduceResult>());
    const results = children.filter((r): r is ReduceResult => r?.kind === 'reduce');
    const withData = new Set<number>();
    let partitions = 0;
    let changed = 0;
    for (const r of results) {
      for (const c of r.withData) withData.add(c);
      partitions += r.partitions;
      changed += r.changed;
    }
    // A file's description (its source, days, scenario) is the same in each of its parts.
    const staged = folder.openRange(plan, 0);
    resetCatalog(plan.base, plan.next);
    const db = await openCatalogDb();
    const conn = await db.connect();
    let published;
    try {
      published = await publishIngest(conn, plan.next, plan.dataset, staged, withData, changed, (line) => this.log(`job ${plan.job}: ${line}`));
    } finally {
      conn.closeSync();
      await db.close();
    }
    const buildId = (dir: string) => (JSON.parse(fs.readFileSync(`${dir}/manifest.json`, 'utf8')) as { build_id: string }).build_id;
    const previous = buildId(plan.base);
    const served = fs.realpathSync(plan.dataDir);
    if (!published.unchanged && served !== plan.base) {
      throw new IngestError(
        `DATA_DIR ${plan.dataDir} was repointed to ${served} while the job ran (it named ${plan.base} when the job was enqueued); ` +
          `the job's build ${plan.next} was not published, as it would drop what changed there. Enqueue the ingest again.`,
      );
    }
    // A queued fetch's record of its sources goes into the new build, so it is published with it.
    if (plan.fetch && !published.unchanged) writeQueuedRecord(plan, children.filter((r): r is MapResult => r?.kind === 'map'));
    const result: PublishResult = {
      kind: 'publish',
      published: !published.unchanged,
      build: published.unchanged ? plan.base : plan.next,
      build_id: published.unchanged ? previous : buildId(plan.next),
      previous_build_id: previous,
      cellsWithData: published.cellsWithData,
      newCells: published.added.length,
      partitions,
      partitionsChanged: changed,
    };
    fs.writeFileSync(pending, JSON.stringify(result, null, 2) + '\n');
    if (result.published) repoint(plan.dataDir, plan.next);
    else fs.rmSync(plan.next, { recursive: true, force: true });
    return await this.finish(plan, folder, pending);
  }

  private async finish(plan: JobPlan, folder: JobFolder, pending: string): Promise<PublishResult> {
    fs.renameSync(pending, folder.resultFile);
    const result = JSON.parse(fs.readFileSync(folder.resultFile, 'utf8')) as PublishResult;
    folder.removeStaged();
    removeJobDownloads(plan);
    if (result.published) {
      const removed = await removeOldBuilds({ dataDir: plan.dataDir, previous: plan.base, jobsDir: path.dirname(folder.dir) });
      for (const dir of removed) this.log(`job ${plan.job}: removed ${dir}, a build older than the one served before (${plan.base})`);
    }
    this.log(
      result.published
        ? `job ${plan.job}: published build ${result.build_id} (${plan.next}); make reload makes running servers serve it`
        : `job ${plan.job}: no partition changed and no cell gained data; build ${result.build_id} stays`,
    );
    return result;
  }
}

function datasetOf(plan: JobPlan) {
  const fixture = DATASETS.find((d) => d.name === plan.dataset);
  if (!fixture) throw new IngestError(`unknown dataset ${plan.dataset} in ${plan.job}'s plan`);
  return fixture;
}

/** A reducer writing into the job's new build. */
async function openReducer(plan: JobPlan): Promise<Reducer> {
  const db = await openCatalogDb();
  const conn = await db.connect();
  let ranges;
  try {
    ranges = await historicRanges(conn, plan.base);
  } finally {
    conn.closeSync();
    await db.close();
  }
  return Reducer.open({
    dataDir: plan.next,
    dataset: plan.dataset,
    models: plan.models,
    scenarios: reduceScenarios(datasetOf(plan)),
    ranges,
  });
}

/** The fetch record of a queued fetch's files, as their map tasks downloaded them, written into the job's new build. */
function writeQueuedRecord(plan: JobPlan, maps: MapResult[]) {
  const done = new Map(maps.flatMap((m) => (m.fetched ? [[m.fetched.url, m.fetched] as const] : [])));
  const f = plan.fetch!;
  writeFetchRecord(plan.next, plan.dataset, f.archive, f.files, done, undefined, regionOf(f), f.via === 'ncss');
}
