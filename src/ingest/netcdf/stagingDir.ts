import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isAlive } from '../buildFolder.js';
import { IngestError } from './ingestError.js';
import type { SourceKey } from './stagedFile.js';

/**
 * The staging folder of one dataset's ingest (DATA_DIR/ingest-staging/<dataset>/): the staged parts
 * of each source file read (the map step's output, one per range of cells), named for the file's path, size and modification
 * time and the cells asked of it, so that a run killed midway and run again reads only the files
 * not staged yet. A lock file holds the running ingest's pid: two ingests of a dataset into one
 * build would overwrite each other's partitions.
 */
export class StagingDir {
  private constructor(
    readonly dir: string,
    private readonly lock: string,
  ) {}

  static open(dataDir: string, dataset: string): StagingDir {
    const dir = path.join(dataDir, 'ingest-staging', dataset);
    fs.mkdirSync(dir, { recursive: true });
    const lock = path.join(dir, 'lock');
    for (;;) {
      try {
        fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
        return new StagingDir(dir, lock);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const holder = Number(fs.readFileSync(lock, 'utf8'));
        if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
          throw new IngestError(`another ingest of ${dataset} into ${dataDir} is running (process ${holder}, ${lock}); wait for it to finish`);
        }
        // Left by an ingest that was killed.
        fs.rmSync(lock, { force: true });
      }
    }
  }

  /** Where the file's values for these cells are staged: the part of each range (cellRanges.ts). */
  partPath(key: SourceKey, cellsKey: string, rangeCells: number): (range: number) => string {
    const id = createHash('sha256').update(JSON.stringify([key.path, key.size, key.mtime, cellsKey, rangeCells])).digest('hex').slice(0, 24);
    return (range) => path.join(this.dir, `${id}.r${range}.stage`);
  }

  /**
   * Removes staged files this run does not ask for (another SRC, changed files, other cells) and
   * temporary files of killed runs, so that only the files of the command being run reach the
   * partitions. Returns how many staged files were dropped.
   */
  retainOnly(wanted: string[]): number {
    const keep = new Set(wanted.map((p) => path.basename(p)));
    let dropped = 0;
    for (const name of fs.readdirSync(this.dir)) {
      if (name === 'lock' || keep.has(name)) continue;
      const tmp = /\.tmp-(\d+)$/.exec(name);
      if (tmp && (Number(tmp[1]) === process.pid || isAlive(Number(tmp[1])))) continue;
      fs.rmSync(path.join(this.dir, name), { force: true });
      if (!tmp) dropped++;
    }
    return dropped;
  }

  /** Removes the folder once its content is in the partitions. */
  remove() {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  release() {
    fs.rmSync(this.lock, { force: true });
  }
}
