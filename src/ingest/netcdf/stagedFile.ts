import fs from 'node:fs';
import nodePath from 'node:path';

/**
 * One source file's values for one range of the cells an ingest asked of it (cellRanges.ts): a
 * part of the output of the map step, read whole by the reduce step of its range. Values are
 * float32 in storage units (NaN where missing), cell-major within time blocks, so that a batch of
 * the range's cells is one read per block:
 *
 *   block 0: cells[0] days t0..t1, cells[1] days t0..t1, ...   block 1: ...
 *   cells (int32 each), hasData (one byte each), empty cells (int32 each),
 *   meta (JSON), meta length (u32), MAGIC (8 bytes)
 *
 * A file too large for memory is staged in several time blocks as it is read; its cells without
 * any value (sea) stay in it, marked in hasData. One that fits in a single block keeps only the
 * cells with values and lists the others as empty. Written under a temporary name and renamed: a
 * staged file in place is whole.
 */
export const MAGIC = 'CPSTAGE1';

export interface SourceKey {
  path: string;
  size: number;
  mtime: number;
}

export interface StagedMeta {
  source: SourceKey;
  variable: string;
  model: string;
  scenario: string;
  calendar: string;
  format: string;
  /** Days since 1970-01-01 of each time step. */
  days: number[];
  blocks: { t0: number; t1: number; offset: number }[];
  cellCount: number;
  cellsOffset: number;
  /** Target cells without any value that are not among `cells`. */
  emptyCount: number;
  /** Target cells in the file's grid, and of those the ones without any value (the whole file's, in every part). */
  cellsInFile: number;
  cellsEmpty: number;
  /** Values of the target cells read (cells x time steps), and values decoded to read them (whole chunks). */
  valuesRead: number;
  valuesDecoded: number;
  /** Which reader read the values: 'native' (NetCDF-4 chunks through Node's zlib), 'h5wasm' or 'netcdf3'. */
  reader: string;
}

/**
 * Writes a part under a temporary name. The file is opened for each write, not held open: a file
 * read in several time blocks writes the parts of every range block by block, and a few hundred
 * ranges must not hold a few hundred descriptors.
 */
export class StagedWriter {
  private pos = 0;
  private readonly blocks: StagedMeta['blocks'] = [];

  constructor(
    readonly path: string,
    private readonly tmp = `${path}.tmp-${process.pid}`,
  ) {
    fs.mkdirSync(nodePath.dirname(path), { recursive: true });
    fs.closeSync(fs.openSync(tmp, 'w'));
  }

  private write(...parts: Uint8Array[]) {
    const fd = fs.openSync(this.tmp, 'r+');
    try {
      for (const bytes of parts) {
        let done = 0;
        while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done, this.pos + done);
        this.pos += bytes.length;
      }
    } finally {
      fs.closeSync(fd);
    }
  }

  /** The values of days t0..t1 for every cell, cell-major. */
  block(t0: number, t1: number, values: Float32Array) {
    this.blocks.push({ t0, t1, offset: this.pos });
    this.write(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
  }

  finish(cells: Int32Array, hasData: Uint8Array, empty: Int32Array, meta: Omit<StagedMeta, 'blocks' | 'cellCount' | 'cellsOffset' | 'emptyCount'>) {
    const cellsOffset = this.pos;
    const json = Buffer.from(JSON.stringify({ ...meta, blocks: this.blocks, cellCount: cells.length, cellsOffset, emptyCount: empty.length } satisfies StagedMeta));
    const tail = Buffer.alloc(12);
    tail.writeUInt32LE(json.length, 0);
    tail.write(MAGIC, 4, 'latin1');
    this.write(new Uint8Array(cells.buffer, cells.byteOffset, cells.byteLength), hasData, new Uint8Array(empty.buffer, empty.byteOffset, empty.byteLength), json, tail);
    const fd = fs.openSync(this.tmp, 'r+');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(this.tmp, this.path);
  }

  abort() {
    fs.rmSync(this.tmp, { force: true });
  }
}

/** A staged part opened for reading batches of its cells. */
export class StagedFile {
  /**
   * Bytes read from the file so far, by open() and readCells(): what the reduce reports, so that
   * it shows (and test/ingest-queue.test.ts checks) that each staged byte is read once.
   */
  bytesRead = 0;

  private constructor(
    readonly path: string,
    readonly meta: StagedMeta,
    /** Cell ids, ascending. */
    readonly cells: Int32Array,
    readonly hasData: Uint8Array,
    /** Target cells without any value that are not among `cells`. */
    readonly empty: Int32Array,
  ) {}

  /** The staged file at `path`, or undefined when it is not a whole staged file. */
  static open(path: string): StagedFile | undefined {
    let fd: number;
    try {
      fd = fs.openSync(path, 'r');
    } catch {
      return undefined;
    }
    try {
      const size = fs.fstatSync(fd).size;
      if (size < 12) return undefined;
      const tail = Buffer.alloc(12);
      fs.readSync(fd, tail, 0, 12, size - 12);
      if (tail.toString('latin1', 4, 12) !== MAGIC) return undefined;
      const jsonLength = tail.readUInt32LE(0);
      const json = Buffer.alloc(jsonLength);
      fs.readSync(fd, json, 0, jsonLength, size - 12 - jsonLength);
      const meta = JSON.parse(json.toString('utf8')) as StagedMeta;
      const cells = new Int32Array(meta.cellCount);
      const hasData = new Uint8Array(meta.cellCount);
      const empty = new Int32Array(meta.emptyCount);
      fs.readSync(fd, new Uint8Array(cells.buffer), 0, cells.byteLength, meta.cellsOffset);
      fs.readSync(fd, hasData, 0, hasData.length, meta.cellsOffset + cells.byteLength);
      fs.readSync(fd, new Uint8Array(empty.buffer), 0, empty.byteLength, meta.cellsOffset + cells.byteLength + hasData.length);
      const staged = new StagedFile(path, meta, cells, hasData, empty);
      staged.bytesRead = 12 + jsonLength + cells.byteLength + hasData.length + empty.byteLength;
      return staged;
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Index of the first cell >= id. */
  indexOf(id: number): number {
    let lo = 0;
    let hi = this.cells.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cells[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The values of cells [k0, k1) (indexes into `cells`) over all time steps: row k - k0 of the
   * result holds the cell's days in time order. One read per time block.
   */
  readCells(k0: number, k1: number): Float32Array {
    const nt = this.meta.days.length;
    const out = new Float32Array((k1 - k0) * nt);
    if (k1 <= k0) return out;
    const fd = fs.openSync(this.path, 'r');
    try {
      for (const b of this.meta.blocks) {
        const bd = b.t1 - b.t0;
        const values = new Float32Array((k1 - k0) * bd);
        const got = fs.readSync(fd, new Uint8Array(values.buffer), 0, values.byteLength, b.offset + k0 * bd * 4);
        if (got !== values.byteLength) throw new Error(`${this.path} is shorter than its blocks say: was it changed while the ingest ran?`);
        this.bytesRead += got;
        if (this.meta.blocks.length === 1) return values;
        for (let k = 0; k < k1 - k0; k++) out.set(values.subarray(k * bd, (k + 1) * bd), k * nt + b.t0);
      }
    } finally {
      fs.closeSync(fd);
    }
    return out;
  }
}

/** The parts a file was staged in, or undefined unless every one is in place and whole (its map step is done). */
export function openParts(paths: string[]): StagedFile[] | undefined {
  const parts: StagedFile[] = [];
  for (const p of paths) {
    const part = StagedFile.open(p);
    if (!part) return undefined;
    parts.push(part);
  }
  return parts;
}
