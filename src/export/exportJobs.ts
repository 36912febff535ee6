import type { Catalog } from '../reference/catalog.js';
import { ProcessClaims, type AccountClaims } from './accountClaims.js';
import { ExportChildProcess, type RunnerOptions } from './exportProcess.js';
import type { ExportStore } from './exportStore.js';

/** Where an accepted export goes to be run: a child of this process, or the queue's workers (exportQueue.ts). */
export interface ExportScheduler {
  /** Where an account's running exports are counted and a new one claimed, as one step. */
  readonly claims: AccountClaims;
  enqueue(id: string): Promise<void>;
  close(): Promise<void>;
}

/** Runs of an export whose runner stopped before it was done (out of memory, a crash, a kill): then it fails. */
export const RUNNER_ATTEMPTS = 2;

/** The error of an export whose runner stopped on each of its attempts. */
export const stoppedError = (reason: string) =>
  `The export's runner stopped before it was done, on each of its ${RUNNER_ATTEMPTS} attempts (the last time ${reason}); nothing was kept. Ask again for fewer models, years, scenarios or cells, or split it.`;

/**
 * Runs exports one at a time, in order, in a child process of the server (ExportChildProcess):
 * the default, with no QUEUE_URL. The child has its own heap, so an export that runs out of
 * memory or crashes stops the child, never the server; the export is then run once more in a new
 * child, and fails with the reason after a second stop. Each run is counted in the job's record
 * before it starts, so a server that stopped with the child (killed, or the machine) takes the
 * job up again at restart (resume) only while it has a run left: no crash loop.
 */
export class LocalExports implements ExportScheduler {
  private runner?: ExportChildProcess;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  readonly claims = new ProcessClaims();

  constructor(
    private readonly store: ExportStore,
    /** The catalog of the data build being served when an export starts. */
    private readonly catalog: () => Catalog,
    private readonly opts: RunnerOptions & { onError?: (err: unknown) => void },
  ) {}

  /** Takes up the jobs a previous process left queued or running (the server calls it once it serves). */
  resume() {
    for (const job of this.store.all().reverse()) if (job.status === 'queued' || job.status === 'running') void this.enqueue(job.id);
  }

  enqueue(id: string): Promise<void> {
    const run = this.chain.then(() => this.runToEnd(id));
    this.chain = run.catch((err: unknown) => this.opts.onError?.(err));
    return Promise.resolve();
  }

  private async runToEnd(id: string): Promise<void> {
    for (;;) {
      const job = this.store.get(id);
      if (this.closed || !job || (job.status !== 'queued' && job.status !== 'running')) return;
      const runs = job.runs ?? 0;
      if (runs >= RUNNER_ATTEMPTS) {
        failStopped(this.store, id, job.stopped ?? 'with the server');
        return;
      }
      this.store.update(id, () => ({ runs: runs + 1 }));
      const result = await (this.runner ??= new ExportChildProcess(this.opts)).run(id, this.catalog().dataDir);
      if (result.kind === 'finished') return;
      this.runner = undefined;
      if (this.closed) {
        // Stopped by the server's shutdown, not by the export: the next server runs it again.
        this.store.clearFiles(id);
        this.store.update(id, () => ({ status: 'queued', progress: 0, files: [], runs }));
        return;
      }
      this.store.update(id, () => ({ stopped: result.reason }));
    }
  }

  /** Resolves once no export is running. */
  idle(): Promise<void> {
    return this.chain;
  }

  /** The runner's process id while one runs (tests stop it as a crash would). */
  runnerPid(): Promise<number | undefined> {
    return this.runner?.pid() ?? Promise.resolve(undefined);
  }

  /**
   * Starts no more exports and ends the runner: an export under way stops where it is and is left
   * queued, for resume() in the next process (a shutdown does not wait for it).
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.runner?.close();
  }
}

/** The export fails with why its runner stopped; the files its attempts finished go. */
export function failStopped(store: ExportStore, id: string, reason: string) {
  const failed = store.update(id, () => ({ status: 'failed', files: [], error: stoppedError(reason) }));
  if (failed?.status === 'failed') store.clearFiles(id);
}
