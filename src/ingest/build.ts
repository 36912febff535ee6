import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILD_FORMAT_VERSION, countCellFiles } from '../dataBuild/buildCheck.js';
import { buildFile } from '../dataBuild/files.js';
import { openDuckDB } from '../db/duckdb.js';
import { writeBuildMapFiles } from '../maps/writeMapFiles.js';
import { DATASETS } from '../reference/fixtures.js';
import { buildCells } from './buildCells.js';
import { writeCatalog } from './buildCatalog.js';
import { BUILD_ENTRIES, dirSize, lockBuild, mb, removeStaleSiblings, removeStaleTemporaries, swapIn } from './buildFolder.js';
import { buildId, resolveOptions, type BuildOptions } from './buildOptions.js';
import { readPlan, writeJsonAtomically, type Manifest, type PlannedCell } from './buildPlan.js';
import { loadSummaryMacros } from './summaries.js';

/**
 * The default build, stage by stage: options (buildOptions.ts), the catalog and the plan of cells
 * (buildCatalog.ts), each cell's days and summaries (buildCells.ts), the map files
 * (maps/writeMapFiles.ts), then the manifest
 * (buildPlan.ts); the folder it is written in is buildFolder.ts's.
 */

/**
 * Builds the default dataset: the reference catalog from data/sources, and synthetic climate data
 * for the cells of the most populous cities, most populous first. By default it writes into a
 * sibling temporary folder and swaps it in at the end, so an interrupted build leaves the previous
 * one intact; with `inPlace` it writes into `outDir` cell by cell and resumes where an interrupted
 * one stopped (see BuildOptions.inPlace).
 */
export async function buildDataset(opts: BuildOptions): Promise<Manifest> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const o = resolveOptions(opts);
  const id = buildId(o);
  const started = Date.now();
  const seconds = () => (Date.now() - started) / 1000;
  const say = (line: string) => log(`[${seconds().toFixed(1).padStart(5)}s] ${line}`);
  const outDir = path.resolve(opts.outDir);
  const dir = opts.inPlace ? outDir : `${outDir}.tmp-${process.pid}`;
  removeStaleSiblings(outDir, log);
  if (opts.inPlace && fs.existsSync(buildFile.manifest(dir))) {
    const manifest = JSON.parse(fs.readFileSync(buildFile.manifest(dir), 'utf8')) as Manifest;
    say(`${dir} holds a complete build (${manifest.build_id}); nothing to do`);
    return manifest;
  }
  if (!opts.inPlace) fs.rmSync(dir, { recursive: true, force: true });
  // A temporary folder is this process's own; an in-place build may meet another writer.
  const unlock = opts.inPlace ? lockBuild(dir) : () => {};

  const db = await openDuckDB({ threads: 1, memoryLimit: '2GB' });
  const conn = await db.connect();
  try {
    await loadSummaryMacros(conn);
    let plan = opts.inPlace ? readPlan(dir, id) : undefined;
    let catalogSummary: string | undefined;
    if (plan) {
      removeStaleTemporaries(dir);
    } else {
      // An in-place folder with another build's plan or pieces starts over; nothing else in it is touched.
      for (const entry of BUILD_ENTRIES) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
      const result = await writeCatalog(conn, dir, o, say);
      catalogSummary = result.summary;
      say(catalogSummary);
      plan = { build_id: id, created: new Date().toISOString(), seed: o.seed, climate_cities: o.climateCities, synthetic: true, format_version: BUILD_FORMAT_VERSION, datasets: result.datasets, years: o.years, cmip6_cities: o.cmip6Cities, dataset_years: o.datasetYears, cells: result.cells };
      writeJsonAtomically(buildFile.plan(dir), plan);
    }
    const { cells: _cells, ...manifestFields } = plan;
    const isBuilt = (c: PlannedCell) => fs.existsSync(buildFile.builtCell(dir, c.dataset, c.cell_id));
    const todo = plan.cells.filter((c) => !isBuilt(c));
    if (todo.length < plan.cells.length) say(`resuming build ${id}: ${plan.cells.length - todo.length} of ${plan.cells.length} cells were built before`);
    await buildCells(dir, plan, todo, o, say, opts.afterCell);
    // Every core: the build's cells are done, and the statements of the map files scale with threads.
    await conn.run(`SET threads = ${os.availableParallelism()}`);
    await writeBuildMapFiles(conn, dir, {}, say);

    const manifest: Manifest = { ...manifestFields, created: new Date().toISOString(), files: countCellFiles(dir) };
    writeJsonAtomically(buildFile.manifest(dir), manifest);
    if (!opts.inPlace) swapIn(dir, outDir);
    say(`done: ${outDir}, ${mb(dirSize(outDir))} in ${seconds().toFixed(1)}s (build ${manifest.build_id}, seed ${o.seed})`);
    if (catalogSummary) log(`         ${catalogSummary}`);
    for (const d of DATASETS) {
      const n = manifest.datasets[d.name]!;
      const years = Object.entries(manifest.dataset_years[d.name] ?? {}).map(([s, [y0, y1]]) => `${s} ${y0}-${y1}`);
      log(
        `         ${d.name} (${d.generation}): ${n.cells_with_data} cells with data x ${n.models} models x ${years.length} scenarios` +
          `${n.cells_with_data > 0 ? ` (${years.join(', ')})` : ''}, ${mb(dirSize(path.join(outDir, 'climate', d.name)))}`,
      );
    }
    return manifest;
  } catch (err) {
    if (!opts.inPlace) fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  } finally {
    conn.closeSync();
    await db.close();
    unlock();
  }
}
