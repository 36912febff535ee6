import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, type Config } from '../config.js';
import type { RunOutcome } from './exportRunner.js';

/** What the export child is started with (its one argument, as JSON). */
export interface ChildOptions {
  exportDir: string;
  memoryLimit: string;
  threads: number;
  maxBytes: number;
}

export interface RunnerOptions extends ChildOptions {
  /** The child's V8 heap (--max-old-space-size), MB. */
  heapMb: number;
}

export const runnerOptions = (config: Config): RunnerOptions => ({
  exportDir: config.EXPORT_DIR,
  memoryLimit: config.DUCKDB_MEMORY_LIMIT,
  threads: config.EXPORT_THREADS,
  maxBytes: config.EXPORT_MAX_BYTES,
  heapMb: config.EXPORT_RUNNER_HEAP_MB,
});

export type ChildRequest = { id: string; dataDir: string };
export type ChildReply = { ready: true } | { id: string; outcome: RunOutcome; error?: string };

/** How one export's run in the child ended: its outcome, or the child's end before it had one. */
export type ChildRun = { kind: 'finished'; outcome: RunOutcome; error?: string } | { kind: 'stopped'; reason: string };

/** The export runner's priority against the requests' (0 is theirs; 19 the lowest). */
const NICENESS = 10;
/** What is kept of the child's standard error, to tell why it ended. */
const STDERR_TAIL = 8192;

/**
 * The compiled child (dist/export/exportChild.js): the compiled service starts the file beside its
 * own; from the TypeScript sources (tests, tsx scripts) the compiled one too, since loading h5wasm
 * through tsx's loader costs seconds at every start (global-setup and the Makefile build dist/).
 */
function childScript(): string {
  const here = new URL(import.meta.url);
  if (here.pathname.endsWith('.js')) return new URL('./exportChild.js', here).pathname;
  const compiled = path.join(ROOT, 'dist', 'export', 'exportChild.js');
  if (!fs.existsSync(compiled)) throw new Error(`${compiled} is missing: exports run in the compiled runner; run make build.`);
  return compiled;
}

/**
 * One export child process, started at the first run and kept for the next ones; a child that
 * ended (out of memory, a crash, a kill) is replaced at the next run. Runs one export at a time.
 */
export class ExportChildProcess {
  private child?: Promise<ChildProcess>;
  private stderr = '';
  private current?: { id: string; settle: (run: ChildRun) => void };

  constructor(private readonly opts: RunnerOptions) {}

  private start(): Promise<ChildProcess> {
    const { heapMb, ...options } = this.opts;
    const child = fork(childScript(), [JSON.stringify(options)], {
      // --expose-gc: the runner frees DuckDB's results as it reads them (resultMemory.ts).
      execArgv: [`--max-old-space-size=${heapMb}`, '--expose-gc'],
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      serialization: 'json',
    });
    this.stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    // An idle child keeps no parent alive (a script, a test file); a running export does.
    this.hold(child, false);
    try {
      if (child.pid !== undefined) os.setPriority(child.pid, NICENESS);
    } catch {
      // Not permitted here: the child runs at the parent's priority.
    }
    return new Promise((resolve, reject) => {
      const early = (code: number | null, signal: string | null) => reject(new Error(`The export runner ended as it started (${this.why(code, signal)}).`));
      child.once('exit', early);
      child.once('error', reject);
      child.on('message', (m: ChildReply) => {
        if ('ready' in m) {
          child.off('exit', early);
          child.off('error', reject);
          child.once('exit', (code, signal) => {
            this.child = undefined;
            this.current?.settle({ kind: 'stopped', reason: this.why(code, signal) });
          });
          resolve(child);
        } else if (this.current?.id === m.id) {
          this.current.settle({ kind: 'finished', outcome: m.outcome, ...(m.error ? { error: m.error } : {}) });
        }
      });
    });
  }

  private hold(child: ChildProcess, running: boolean) {
    const channel = child.channel as { ref(): void; unref(): void } | undefined;
    if (running) {
      child.ref();
      channel?.ref();
    } else {
      child.unref();
      channel?.unref();
    }
  }

  /** Why the child ended, in words a user can act on. */
  private why(code: number | null, signal: string | null): string {
    if (/heap limit|heap out of memory|Ineffective mark-compacts/i.test(this.stderr)) return `it ran out of memory, with a heap of ${this.opts.heapMb} MB (EXPORT_RUNNER_HEAP_MB)`;
    if (signal) return `it was stopped by ${signal}`;
    return `it exited with status ${code}`;
  }

  /** Runs export `id` on the build in `dataDir`; resolves when the child answers or ends. */
  async run(id: string, dataDir: string): Promise<ChildRun> {
    let child: ChildProcess;
    try {
      child = await (this.child ??= this.start());
    } catch (err) {
      this.child = undefined;
      return { kind: 'stopped', reason: err instanceof Error ? err.message : String(err) };
    }
    return new Promise<ChildRun>((resolve) => {
      this.current = {
        id,
        settle: (run) => {
          this.current = undefined;
          this.hold(child, false);
          resolve(run);
        },
      };
      this.hold(child, true);
      child.send({ id, dataDir } satisfies ChildRequest);
    });
  }

  /** Ends the child (an export under way stops where it is). */
  async close(): Promise<void> {
    const child = await this.child?.catch(() => undefined);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }

  /** The child's process id while it runs (tests stop it as a crash would). */
  async pid(): Promise<number | undefined> {
    return (await this.child?.catch(() => undefined))?.pid;
  }
}
