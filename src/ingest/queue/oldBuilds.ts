import fs from 'node:fs';
import path from 'node:path';

/**
 * After a publish, the builds beside the served one that no server needs any more. The build
 * served before this publish stays: servers serve it until they reload. Builds older than that
 * were replaced by it at an earlier publish, and every server reloaded to it or past it, so they
 * are removed. Never removed: DATA_DIR's target, the previous build, and the build of a job that
 * has not published (still being written, or left by a failed job for a look).
 */
export async function removeOldBuilds(opts: { dataDir: string; previous: string; jobsDir: string }): Promise<string[]> {
  const current = fs.realpathSync(opts.dataDir);
  const previous = path.resolve(opts.previous);
  const parent = path.dirname(current);
  const removed: string[] = [];
  for (const e of await fs.promises.readdir(parent, { withFileTypes: true })) {
    // Folders only: DATA_DIR's own link (and the temporary link of a repoint) are symlinks.
    if (!e.isDirectory() || !/^build-/.test(e.name)) continue;
    const dir = path.join(parent, e.name);
    if (dir === current || dir === previous || unpublishedJobBuild(opts.jobsDir, e.name)) continue;
    // Asynchronous, so that the worker goes on renewing its task's lease over a large build.
    await fs.promises.rm(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}

/** Whether `build-<job>` is the build of a job that has not published (its folder has no published.json). */
function unpublishedJobBuild(jobsDir: string, name: string): boolean {
  const job = path.join(jobsDir, name.slice('build-'.length));
  return fs.existsSync(path.join(job, 'plan.json')) && !fs.existsSync(path.join(job, 'published.json'));
}
