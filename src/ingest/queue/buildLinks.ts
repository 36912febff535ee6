import fs from 'node:fs';
import path from 'node:path';
import { CELL_TREES, cellPath } from '../../dataBuild/files.js';

/**
 * A job's new build starts as a copy of the served one made of hard links: no byte is copied, and
 * the served build is never changed, because every writer of a build (partitions, summaries,
 * catalog, manifest) writes a new file beside its target and renames it over the target, which
 * replaces the link in the new build only. Staging folders and temporary files are left out.
 */
export async function linkBuild(from: string, to: string): Promise<void> {
  await fs.promises.rm(to, { recursive: true, force: true });
  // Asynchronous, so that the worker goes on renewing its task's lease over a large build.
  const walk = async (src: string, dst: string) => {
    await fs.promises.mkdir(dst, { recursive: true });
    for (const e of await fs.promises.readdir(src, { withFileTypes: true })) {
      if (e.name === 'ingest-staging' || /\.tmp-\d+$/.test(e.name)) continue;
      const s = path.join(src, e.name);
      const d = path.join(dst, e.name);
      if (e.isDirectory()) await walk(s, d);
      else await fs.promises.link(s, d);
    }
  };
  await walk(from, to);
}

/** Makes `to`'s file at `rel` the one `from` has (a link to it), or removes it when `from` has none. */
function relink(from: string, to: string, rel: string) {
  const target = path.join(to, rel);
  fs.rmSync(target, { force: true });
  if (fs.existsSync(path.join(from, rel))) {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.linkSync(path.join(from, rel), target);
  }
}

/**
 * Puts the files of these cells (days and summaries, every scenario) back as the served build has
 * them, and removes temporaries a killed worker left beside them: a reduce task run again after a
 * kill starts from where the first run started, so it finds the same partitions changed and
 * rewrites the same summaries.
 */
export function resetCells(from: string, to: string, dataset: string, scenarios: string[], cells: number[]) {
  const prefixes = cells.map((c) => `${c}.parquet.tmp-`);
  for (const tree of CELL_TREES) {
    for (const scenario of scenarios) {
      for (const cell of cells) relink(from, to, path.relative(to, cellPath(to, tree, dataset, scenario, cell)));
      const dir = path.dirname(cellPath(to, tree, dataset, scenario, 0));
      if (!fs.existsSync(dir)) continue;
      for (const name of fs.readdirSync(dir)) if (prefixes.some((p) => name.startsWith(p))) fs.rmSync(path.join(dir, name), { force: true });
    }
  }
}

/** The files the publish step rewrites, put back as the served build has them before it runs (again). */
export function resetCatalog(from: string, to: string) {
  for (const rel of ['manifest.json', 'catalog/map_cell.parquet', 'catalog/dataset.parquet']) relink(from, to, rel);
}

/** Points the symlink at `target` in one step: a new link renamed over the old one. */
export function repoint(link: string, target: string) {
  const tmp = `${link}.next-${process.pid}`;
  fs.rmSync(tmp, { force: true });
  fs.symlinkSync(target, tmp);
  fs.renameSync(tmp, link);
}
