import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect } from 'vitest';

/**
 * With TEST_CPU_LOG=<file>, each test file appends one JSON line when it ends: its process's CPU
 * seconds and those of the children it reaped (servers, workers, CLIs, Chromium, redis-server). On a
 * shared 2-core machine wall times swing with the others' load; CPU seconds barely do, so this is
 * what docs/development.md compares files by. Vitest runs a setup file's afterAll after the file's
 * own, so the children its hooks stop are counted. `pid`, `start` and `end` (ms since the epoch,
 * over the same span) say which files ran at once, and in which worker.
 *
 * A worker that runs several files one after the other (the `shared` project of vitest.config.ts,
 * isolate: false) keeps its process: each file counts from where the file before it ended (kept on
 * globalThis, which outlives a file's modules there), its imports included; a file in a process of
 * its own counts from the process's start, as before.
 */
const log = process.env.TEST_CPU_LOG;
const KEY = Symbol.for('climate-tests.cpu-at-last-file-end');
type WithMark = typeof globalThis & { [KEY]?: { times: number[]; at: number } };

/** utime, stime, cutime, cstime of /proc/self/stat, in seconds (Linux only; zeros elsewhere). */
function procTimes(): number[] {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    // The command name, in parentheses, may hold spaces: fields are counted after its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [11, 12, 13, 14].map((i) => Number(fields[i]) / 100);
  } catch {
    return [0, 0, 0, 0];
  }
}

if (log) {
  afterAll(() => {
    const now = { times: procTimes(), at: Date.now() };
    const since = (globalThis as WithMark)[KEY] ?? { times: [0, 0, 0, 0], at: Math.round(performance.timeOrigin) };
    (globalThis as WithMark)[KEY] = now;
    const [user, system, childUser, childSystem] = now.times.map((t, i) => t - since.times[i]!);
    const file = path.relative(process.cwd(), expect.getState().testPath ?? '?');
    // start and end (ms since the epoch) over the same span as the CPU: which files ran at once.
    const line = { file, cpu: +(user! + system!).toFixed(2), children: +(childUser! + childSystem!).toFixed(2), pid: process.pid, start: since.at, end: now.at };
    fs.appendFileSync(log, `${JSON.stringify(line)}\n`);
  });
}
