import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ExportPlan } from './exportPlan.js';
import type { ExportBody } from './exportRequest.js';

export const EXPORT_STATUSES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

export interface ExportFile {
  name: string;
  bytes: number;
  sha256: string;
}

/** One export job as kept on disk: what was asked, how far it is, what it wrote. */
export interface ExportJob {
  id: string;
  /** The account that asked; no other sees it. */
  account: number;
  status: ExportStatus;
  progress: number;
  request: ExportBody;
  plan: ExportPlan;
  files: ExportFile[];
  created_at: string;
  expires_at: string;
  error: string | null;
  /** Runs started in a runner (counted before each starts; LocalExports, absent before the first). */
  runs?: number;
  /** Why the last runner stopped before it was done. */
  stopped?: string;
}

/**
 * A job's folder is removed while its runner, another process, may still add a file to it (until
 * it sees the DELETE): a recursive removal then meets a folder that is not empty, and tries again.
 */
const REMOVE_FOLDER = { recursive: true, force: true, maxRetries: 10, retryDelay: 50 } as const;

const ID = /^exp-[0-9a-f]{24}$/;
export const newExportId = () => `exp-${randomBytes(12).toString('hex')}`;
export const isExportId = (id: string) => ID.test(id);

/**
 * The jobs and their files in EXPORT_DIR, a folder every replica and export worker sees: a JSON
 * record per job (`jobs/<id>.json`) and a folder of files per job (`files/<id>/`). Every write is
 * to a temporary name and then renamed, so a reader (or a process killed mid-write) never leaves a
 * half-written record or a file that claims to be whole.
 */
export class ExportStore {
  /** Nothing is created on disk until the first export. */
  constructor(readonly dir: string) {}

  private recordPath(id: string) {
    return path.join(this.dir, 'jobs', `${id}.json`);
  }

  /**
   * Written once by a DELETE and never overwritten: a runner's read-modify-write of the record that
   * crosses the DELETE's cannot bring a cancelled job back to running.
   */
  private cancelMark(id: string) {
    return path.join(this.dir, 'jobs', `${id}.cancelled`);
  }

  filesDir(id: string) {
    return path.join(this.dir, 'files', id);
  }

  /** Where a file is written until it is whole; `partial` names never appear in a job's files. */
  partialPath(id: string, name: string) {
    return path.join(this.filesDir(id), `.${name}.partial-${process.pid}-${randomBytes(4).toString('hex')}`);
  }

  filePath(id: string, name: string) {
    return path.join(this.filesDir(id), name);
  }

  private write(job: ExportJob) {
    const target = this.recordPath(job.id);
    const tmp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(tmp, JSON.stringify(job));
    fs.renameSync(tmp, target);
  }

  create(job: ExportJob) {
    fs.mkdirSync(path.join(this.dir, 'jobs'), { recursive: true });
    fs.mkdirSync(this.filesDir(job.id), { recursive: true });
    this.write(job);
  }

  get(id: string): ExportJob | undefined {
    if (!isExportId(id)) return undefined;
    try {
      const job = JSON.parse(fs.readFileSync(this.recordPath(id), 'utf8')) as ExportJob;
      if (job.status !== 'cancelled' && fs.existsSync(this.cancelMark(id))) return { ...job, status: 'cancelled', files: [] };
      return job;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Every job, newest first. */
  all(): ExportJob[] {
    const jobs = path.join(this.dir, 'jobs');
    if (!fs.existsSync(jobs)) return [];
    const ids = fs.readdirSync(jobs).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5));
    return ids
      .map((id) => this.get(id))
      .filter((j): j is ExportJob => j !== undefined)
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
  }

  ofAccount(account: number): ExportJob[] {
    return this.all().filter((j) => j.account === account);
  }

  /**
   * Changes a job as `change` says, unless it was cancelled meanwhile (a cancelled job stays
   * cancelled whatever a runner that has not noticed yet writes). Returns the job as stored after.
   */
  update(id: string, change: (job: ExportJob) => Partial<ExportJob>): ExportJob | undefined {
    const job = this.get(id);
    if (!job || job.status === 'cancelled') return job;
    const next = { ...job, ...change(job) };
    this.write(next);
    return next;
  }

  /** Marks a job cancelled (a runner stops at its next check) and deletes its files. */
  cancel(id: string): ExportJob | undefined {
    const job = this.get(id);
    if (!job) return undefined;
    const cancelling = job.status !== 'done' && job.status !== 'failed';
    const next: ExportJob = { ...job, status: cancelling ? 'cancelled' : job.status, files: [] };
    if (cancelling) fs.writeFileSync(this.cancelMark(id), '');
    this.write(next);
    this.removeFiles(id);
    return next;
  }

  /** Removes what a job's folder holds (whole and partial files); the folder stays. */
  clearFiles(id: string) {
    const dir = this.filesDir(id);
    if (!fs.existsSync(dir)) return;
    for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f), REMOVE_FOLDER);
  }

  /** The job's folder of files, gone (the record stays). */
  removeFiles(id: string) {
    fs.rmSync(this.filesDir(id), REMOVE_FOLDER);
  }

  /** The job and its files, gone. */
  remove(id: string) {
    this.removeFiles(id);
    fs.rmSync(this.recordPath(id), { force: true });
    fs.rmSync(this.cancelMark(id), { force: true });
  }

  /** Removes the jobs whose time is up; returns their ids. */
  removeExpired(now = Date.now()): string[] {
    const gone = this.all().filter((j) => Date.parse(j.expires_at) <= now);
    for (const j of gone) this.remove(j.id);
    return gone.map((j) => j.id);
  }
}
