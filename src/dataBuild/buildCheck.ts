import fs from 'node:fs';
import path from 'node:path';
import { CELL_TREES, type CellTree } from './files.js';

/**
 * The layout of a build's files that this service reads. A build writes it into its manifest
 * (`format_version`); a manifest without one is of format 1, the layout before the field.
 */
export const BUILD_FORMAT_VERSION = 1;

/** The format versions this service can serve. */
const READABLE_FORMATS = [1];

/** Refuses a manifest whose layout this service does not know (a newer service wrote it). */
export function checkFormatVersion(manifest: Record<string, unknown>, dataDir: string): void {
  const version = manifest.format_version ?? 1;
  if (!READABLE_FORMATS.includes(version as number)) {
    throw new Error(
      `${dataDir}/manifest.json is of format version ${JSON.stringify(version)}, which this service cannot read ` +
        `(it reads ${READABLE_FORMATS.join(', ')}): upgrade the service, or build the data with this one (make data).`,
    );
  }
}

/** How many cell files each tree of a build holds: the manifest records it, a reload checks it. */
export type CellFileCounts = Record<CellTree, number>;

/** The entries of a folder, none when it does not exist. */
function entries(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** The `<dataset>/<scenario>` folders of the cell files, over every tree. */
function cellFolders(dataDir: string): string[] {
  const folders = new Set<string>();
  for (const tree of CELL_TREES) {
    for (const dataset of entries(path.join(dataDir, tree))) {
      for (const scenario of entries(path.join(dataDir, tree, dataset))) folders.add(`${dataset}/${scenario}`);
    }
  }
  return [...folders].sort();
}

/** The names of the cell files of one tree's `<dataset>/<scenario>` folder. */
function cellFilesIn(dataDir: string, tree: CellTree, folder: string): string[] {
  return entries(path.join(dataDir, tree, folder)).filter((name) => name.endsWith('.parquet'));
}

export function countCellFiles(dataDir: string): CellFileCounts {
  const counts = Object.fromEntries(CELL_TREES.map((tree) => [tree, 0])) as CellFileCounts;
  for (const folder of cellFolders(dataDir)) for (const tree of CELL_TREES) counts[tree] += cellFilesIn(dataDir, tree, folder).length;
  return counts;
}

/** Parquet's magic bytes, at both ends of every complete file. */
const MAGIC = Buffer.from('PAR1');

/** Why one Parquet file cannot be read, or undefined when its ends look whole. */
function parquetProblem(file: string, head: Buffer, tail: Buffer, who: Identity): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return 'is missing';
  }
  if (stat.size === 0) return 'is empty';
  if (!readableByMode(stat, who)) return `is not readable (mode ${(stat.mode & 0o777).toString(8).padStart(3, '0')})`;
  if (stat.size < 12) return 'is truncated (shorter than a Parquet file can be)';
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    return `cannot be opened (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
  try {
    fs.readSync(fd, head, 0, 4, 0);
    fs.readSync(fd, tail, 0, 8, stat.size - 8);
  } finally {
    fs.closeSync(fd);
  }
  if (!head.equals(MAGIC)) return 'is not a Parquet file';
  if (!tail.subarray(4).equals(MAGIC)) return 'is truncated (no Parquet footer at its end)';
  if (tail.readUInt32LE(0) > stat.size - 12) return 'is truncated (its footer is longer than the file)';
  return undefined;
}

/** This process's user and groups, asked once per check (getgroups is a system call). */
interface Identity {
  uid: number | undefined;
  gids: Set<number | undefined>;
}

const identity = (): Identity => ({ uid: process.getuid?.(), gids: new Set([process.getgid?.(), ...(process.getgroups?.() ?? [])]) });

/**
 * Whether the mode bits let this process's user read the file. Root reads anything, but the
 * replicas that share a build may not run as root: a file nobody may read is a broken build.
 */
function readableByMode(stat: fs.Stats, { uid, gids }: Identity): boolean {
  if (uid === stat.uid) return (stat.mode & 0o400) !== 0;
  if (gids.has(stat.gid)) return (stat.mode & 0o040) !== 0;
  return (stat.mode & 0o004) !== 0 || (uid === 0 && (stat.mode & 0o444) !== 0);
}

/**
 * Files checked between two turns of the event loop: synchronous reads were 5-10x faster than
 * through the thread pool (the test build's 405 files: 7-30 ms against 140-190 ms, on a loaded
 * host), and a batch this size holds a serving process up a few ms at most.
 */
const BATCH = 200;

const SHOWN_PROBLEMS = 5;

/** The cells with data of the catalog, per dataset by increasing id (src/reference/mapCells.ts). */
export interface CellsWithData {
  names(): string[];
  ids(dataset: string): Int32Array;
  /** The cell's position in ids(dataset), or -1 when it has no data. */
  position(dataset: string, cellId: number): number;
}

/**
 * Whether every cell file of a complete build can be served: each (dataset, scenario, cell) that
 * has any file has all four (days, monthly, ensemble, ensemble JSON), each one a whole Parquet
 * file this process may read; each catalog cell with data has its days; and each tree holds as
 * many files as the manifest says it wrote (`files`, when the manifest has it). Throws naming what
 * is wrong. Reads 12 bytes of each file, a few thousand files a second per build. One
 * `<dataset>/<scenario>` folder at a time: the names of 200,000 cells' files in four trees at
 * once held hundreds of MB.
 */
export async function checkCellFiles(dataDir: string, manifest: Record<string, unknown>, cells: CellsWithData): Promise<void> {
  const problems: string[] = [];
  const counts = Object.fromEntries(CELL_TREES.map((tree) => [tree, 0])) as CellFileCounts;
  // Per dataset, which of its cells with data have a file of days in some scenario.
  const withDays = new Map(cells.names().map((dataset) => [dataset, new Uint8Array(cells.ids(dataset).length)]));
  const head = Buffer.alloc(4);
  const tail = Buffer.alloc(8);
  const who = identity();
  let checked = 0;
  for (const folder of cellFolders(dataDir)) {
    const trees = new Map(CELL_TREES.map((tree) => [tree, new Set(cellFilesIn(dataDir, tree, folder))]));
    const all = new Set<string>();
    for (const [tree, names] of trees) {
      counts[tree] += names.size;
      for (const name of names) all.add(name);
    }
    for (const name of all) {
      for (const tree of CELL_TREES) if (!trees.get(tree)!.has(name)) problems.push(`${tree}/${folder}/${name} is missing`);
    }
    const dataset = folder.slice(0, folder.indexOf('/'));
    const seen = withDays.get(dataset);
    for (const name of trees.get('climate')!) {
      const i = seen ? cells.position(dataset, Number(name.slice(0, -'.parquet'.length))) : -1;
      if (i >= 0 && `${cells.ids(dataset)[i]}.parquet` === name) seen![i] = 1;
    }
    for (const [tree, names] of trees) {
      for (const name of names) {
        if (++checked % BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
        const problem = parquetProblem(path.join(dataDir, tree, folder, name), head, tail, who);
        if (problem) problems.push(`${tree}/${folder}/${name} ${problem}`);
      }
    }
  }
  const recorded = manifest.files as Partial<CellFileCounts> | undefined;
  for (const tree of CELL_TREES) {
    const count = recorded?.[tree];
    if (count !== undefined && count !== counts[tree]) problems.push(`${tree}/ holds ${counts[tree]} cell files where the manifest says ${count}`);
  }
  for (const [dataset, seen] of withDays) {
    const ids = cells.ids(dataset);
    for (let i = 0; i < ids.length; i++) if (!seen[i]) problems.push(`the catalog's ${dataset} cell ${ids[i]} has data but no file in climate/`);
  }
  if (problems.length > 0) {
    const shown = problems.sort().slice(0, SHOWN_PROBLEMS).join('; ');
    const more = problems.length > SHOWN_PROBLEMS ? ` (and ${problems.length - SHOWN_PROBLEMS} more)` : '';
    throw new Error(`${dataDir} cannot be served: ${shown}${more}.`);
  }
}
