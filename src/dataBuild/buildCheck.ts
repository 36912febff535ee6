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

/** `<dataset>/<scenario>/<cell>.parquet` of every cell file of one tree. */
function cellFilesOf(dataDir: string, tree: CellTree): string[] {
  const root = path.join(dataDir, tree);
  if (!fs.existsSync(root)) return [];
  const files: string[] = [];
  for (const dataset of fs.readdirSync(root)) {
    for (const scenario of fs.readdirSync(path.join(root, dataset))) {
      for (const name of fs.readdirSync(path.join(root, dataset, scenario))) {
        if (name.endsWith('.parquet')) files.push(`${dataset}/${scenario}/${name}`);
      }
    }
  }
  return files;
}

export function countCellFiles(dataDir: string): CellFileCounts {
  return Object.fromEntries(CELL_TREES.map((tree) => [tree, cellFilesOf(dataDir, tree).length])) as CellFileCounts;
}

/** Parquet's magic bytes, at both ends of every complete file. */
const MAGIC = Buffer.from('PAR1');

/** Why one Parquet file cannot be read, or undefined when its ends look whole. */
function parquetProblem(file: string, head: Buffer, tail: Buffer): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return 'is missing';
  }
  if (stat.size === 0) return 'is empty';
  if (!readableByMode(stat)) return `is not readable (mode ${(stat.mode & 0o777).toString(8).padStart(3, '0')})`;
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

/**
 * Whether the mode bits let this process's user read the file. Root reads anything, but the
 * replicas that share a build may not run as root: a file nobody may read is a broken build.
 */
function readableByMode(stat: fs.Stats): boolean {
  const uid = process.getuid?.();
  const gids = new Set([process.getgid?.(), ...(process.getgroups?.() ?? [])]);
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

/**
 * Whether every cell file of a complete build can be served: each (dataset, scenario, cell) that
 * has any file has all four (days, monthly, ensemble, ensemble JSON), each one a whole Parquet
 * file this process may read; each catalog cell with data has its days; and each tree holds as
 * many files as the manifest says it wrote (`files`, when the manifest has it). Throws naming what
 * is wrong. Reads 12 bytes of each file, a few thousand files a second per build.
 */
export async function checkCellFiles(dataDir: string, manifest: Record<string, unknown>, cellsWithData: { dataset: string; cellId: number }[]): Promise<void> {
  const problems: string[] = [];
  const trees = new Map(CELL_TREES.map((tree) => [tree, new Set(cellFilesOf(dataDir, tree))]));
  const recorded = manifest.files as Partial<CellFileCounts> | undefined;
  for (const tree of CELL_TREES) {
    const count = recorded?.[tree];
    if (count !== undefined && count !== trees.get(tree)!.size) problems.push(`${tree}/ holds ${trees.get(tree)!.size} cell files where the manifest says ${count}`);
  }
  const all = new Set(CELL_TREES.flatMap((tree) => [...trees.get(tree)!]));
  for (const key of all) {
    for (const tree of CELL_TREES) if (!trees.get(tree)!.has(key)) problems.push(`${tree}/${key} is missing`);
  }
  const climateCells = new Set([...trees.get('climate')!].map((key) => {
    const [dataset, , name] = key.split('/');
    return `${dataset}/${name}`;
  }));
  for (const c of cellsWithData) {
    if (!climateCells.has(`${c.dataset}/${c.cellId}.parquet`)) problems.push(`the catalog's ${c.dataset} cell ${c.cellId} has data but no file in climate/`);
  }
  const present = CELL_TREES.flatMap((tree) => [...trees.get(tree)!].map((key) => `${tree}/${key}`));
  const head = Buffer.alloc(4);
  const tail = Buffer.alloc(8);
  for (let i = 0; i < present.length; i++) {
    if (i > 0 && i % BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
    const problem = parquetProblem(path.join(dataDir, present[i]!), head, tail);
    if (problem) problems.push(`${present[i]} ${problem}`);
  }
  if (problems.length > 0) {
    const shown = problems.sort().slice(0, SHOWN_PROBLEMS).join('; ');
    const more = problems.length > SHOWN_PROBLEMS ? ` (and ${problems.length - SHOWN_PROBLEMS} more)` : '';
    throw new Error(`${dataDir} cannot be served: ${shown}${more}.`);
  }
}
