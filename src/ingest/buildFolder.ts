import fs from 'node:fs';
import path from 'node:path';
import { CELL_TREES } from '../dataBuild/files.js';
import { MAP_FILES_DIR } from '../maps/mapFiles.js';
import { BuildError } from './buildError.js';

/** A build's folder: one writer at a time, what interrupted writers left, the swap of a finished build, its size. */

export function dirSize(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? dirSize(p) : fs.statSync(p).size;
  }
  return total;
}

export const mb = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;

/** Whether a process (of an interrupted build or ingest) still runs. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0: only asks whether the process exists
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes `<outDir>.tmp-<pid>` and `<outDir>.old-<pid>` folders left by builds that were killed. */
export function removeStaleSiblings(outDir: string, log: (line: string) => void) {
  const parent = path.dirname(outDir);
  const base = path.basename(outDir);
  if (!fs.existsSync(parent)) return;
  for (const name of fs.readdirSync(parent)) {
    if (!name.startsWith(`${base}.`)) continue;
    const m = /^\.(tmp|old)-(\d+)$/.exec(name.slice(base.length));
    if (!m) continue;
    const pid = Number(m[2]);
    if (pid === process.pid || isAlive(pid)) continue;
    fs.rmSync(path.join(parent, name), { recursive: true, force: true });
    log(`removed ${name}, left by an interrupted build (process ${pid})`);
  }
}

/** The parts of a build folder, removed when an in-place build starts over. */
export const BUILD_ENTRIES = ['manifest.json', 'plan.json', 'built', 'catalog', MAP_FILES_DIR, ...CELL_TREES];

/**
 * Removes what interrupted writers left in a build folder: `*.tmp-<pid>` files and folders of
 * processes that no longer run.
 */
export function removeStaleTemporaries(dir: string) {
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const m = /\.tmp-(\d+)$/.exec(e.name);
      if (m && Number(m[1]) !== process.pid && !isAlive(Number(m[1]))) fs.rmSync(p, { recursive: true, force: true });
      else if (e.isDirectory()) walk(p);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
}

/** One writer per build folder: a lock file naming the process, taken over from a dead one. */
export function lockBuild(dir: string): () => void {
  const lock = path.join(dir, 'build.lock');
  fs.mkdirSync(dir, { recursive: true });
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lock, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(lock, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw new BuildError(`Another build (process ${owner}) is writing ${dir}: wait for it, or stop it first.`);
      }
      fs.rmSync(lock, { force: true });
    }
  }
}

/** Swaps a finished build in; the old one is only removed once the new one is in place. */
export function swapIn(tmp: string, outDir: string) {
  const old = `${outDir}.old-${process.pid}`;
  fs.mkdirSync(path.dirname(outDir), { recursive: true });
  const hadOld = fs.existsSync(outDir);
  if (hadOld) fs.renameSync(outDir, old);
  try {
    fs.renameSync(tmp, outDir);
  } catch (err) {
    if (hadOld) fs.renameSync(old, outDir);
    throw err;
  }
  fs.rmSync(old, { recursive: true, force: true });
}
