import { Cursor, Hdf5Unsupported, type FileBytes } from './fileBytes.js';
import type { ChunkIndex } from './hdf5Structure.js';
import { isDefined, type Sizes } from './objectHeader.js';

/** One stored chunk: where it starts in the dataset (element indexes), and its bytes in the file. */
export interface ChunkEntry {
  start: number[];
  address: number;
  size: number;
  /** Bit k set: filter k of the pipeline was not applied to this chunk. */
  filterMask: number;
}

/**
 * Every allocated chunk of a dataset, read once from its index. Chunks never written are absent
 * (they hold the fill value).
 */
export function readChunkIndex(file: FileBytes, sizes: Sizes, index: ChunkIndex, shape: number[], chunks: number[], element: number): ChunkEntry[] {
  if (index.type === 'single') {
    if (!isDefined(index.address)) return [];
    const raw = chunks.reduce((a, b) => a * b, element);
    return [{ start: shape.map(() => 0), address: index.address, size: index.filteredSize ?? raw, filterMask: index.filterMask ?? 0 }];
  }
  if (index.type === 'implicit') {
    // Unfiltered chunks laid out one after the other in row-major order of their positions.
    if (!isDefined(index.address)) return [];
    const raw = chunks.reduce((a, b) => a * b, element);
    const counts = shape.map((n, k) => Math.ceil(n / chunks[k]!));
    const out: ChunkEntry[] = [];
    const total = counts.reduce((a, b) => a * b, 1);
    for (let n = 0; n < total; n++) {
      let rest = n;
      const start = new Array<number>(shape.length);
      for (let k = shape.length - 1; k >= 0; k--) {
        start[k] = (rest % counts[k]!) * chunks[k]!;
        rest = Math.floor(rest / counts[k]!);
      }
      out.push({ start, address: index.address + n * raw, size: raw, filterMask: 0 });
    }
    return out;
  }
  if (index.type === 'fixed') return isDefined(index.address) ? fixedArray(file, sizes, index.address, index.layoutVersion, shape, chunks, element) : [];
  const out: ChunkEntry[] = [];
  if (isDefined(index.address)) visitBtree(file, sizes, index.address, shape.length, out);
  return out;
}

/** Where chunk n (row-major over the chunk grid) starts, in element indexes. */
function chunkStart(n: number, shape: number[], chunks: number[]): number[] {
  const start = new Array<number>(shape.length);
  for (let k = shape.length - 1; k >= 0; k--) {
    const count = Math.ceil(shape[k]! / chunks[k]!);
    start[k] = (n % count) * chunks[k]!;
    n = Math.floor(n / count);
  }
  return start;
}

/**
 * A fixed array (HDF5 1.10's index for chunked datasets without unlimited dimensions): a header
 * ("FAHD": client 0 unfiltered or 1 filtered, entry size, log2 of entries per page, entry count,
 * data block address) and a data block ("FADB": header address, then the entries, one per chunk
 * in row-major order of chunk positions; over 2^bits entries, a bitmap of the pages written and
 * the pages after it, each with its own checksum). An entry is the chunk's address, and for
 * filtered chunks its stored size and filter mask. Checksums are not verified.
 */
function fixedArray(file: FileBytes, sizes: Sizes, address: number, layoutVersion: number, shape: number[], chunks: number[], element: number): ChunkEntry[] {
  const raw = chunks.reduce((a, b) => a * b, element);
  const head = new Cursor(file.read(address, 8 + sizes.lengthSize + sizes.offsetSize), 0, sizes.offsetSize, sizes.lengthSize);
  head.signature('FAHD');
  head.u8(); // version
  const filtered = head.u8() === 1;
  const entrySize = head.u8();
  const pageBits = head.u8();
  const count = head.length();
  const blockAt = head.offset();
  if (filtered && layoutVersion >= 5) throw new Hdf5Unsupported('filtered chunks indexed by a fixed array of layout version 5');
  if (!isDefined(blockAt)) return [];
  const perPage = 2 ** pageBits;
  const pages = count > perPage ? Math.ceil(count / perPage) : 0;
  const prefix = 6 + sizes.offsetSize + Math.ceil(pages / 8);
  const block = new Cursor(file.read(blockAt, prefix), 0, sizes.offsetSize, sizes.lengthSize);
  block.signature('FADB');
  block.skip(2 + sizes.offsetSize); // version, client, header address
  const written = block.bytes(Math.ceil(pages / 8));
  const out: ChunkEntry[] = [];
  const sizeBytes = entrySize - sizes.offsetSize - 4;
  const readEntries = (at: number, first: number, n: number) => {
    const c = new Cursor(file.read(at, n * entrySize), 0, sizes.offsetSize, sizes.lengthSize);
    for (let k = 0; k < n; k++) {
      const chunkAt = c.offset();
      const size = filtered ? c.uint(sizeBytes) : 0;
      const filterMask = filtered ? c.u32() : 0;
      if (!isDefined(chunkAt)) continue; // never written: fill value
      const start = chunkStart(first + k, shape, chunks);
      out.push({ start, address: chunkAt, size: filtered ? size : raw, filterMask });
    }
  };
  if (pages === 0) {
    readEntries(blockAt + prefix, 0, count);
    return out;
  }
  // Pages follow the prefix and its checksum, each perPage entries (the last fewer) and a checksum.
  let at = blockAt + prefix + 4;
  for (let p = 0; p < pages; p++) {
    const n = Math.min(perPage, count - p * perPage);
    // Bitmap bits run from the most significant bit of the first byte.
    if (written[p >> 3]! & (0x80 >> (p & 7))) readEntries(at, p * perPage, n);
    at += n * entrySize + 4;
  }
  return out;
}


/**
 * A version 1 B-tree of raw data chunks (node type 1): each key holds the chunk's filtered size,
 * filter mask and element offsets (one more dimension than the dataset, always 0); each child is
 * a lower node or, at level 0, the chunk's address.
 */
function visitBtree(file: FileBytes, sizes: Sizes, address: number, rank: number, out: ChunkEntry[]) {
  const headerSize = 8 + 2 * sizes.offsetSize;
  const keySize = 8 + 8 * (rank + 1);
  const head = new Cursor(file.read(address, headerSize), 0, sizes.offsetSize, sizes.lengthSize);
  head.signature('TREE');
  const type = head.u8();
  const level = head.u8();
  const entries = head.u16();
  if (type !== 1) throw new Hdf5Unsupported(`a chunk B-tree node of type ${type}`);
  const c = new Cursor(file.read(address + headerSize, entries * (keySize + sizes.offsetSize) + keySize), 0, sizes.offsetSize, sizes.lengthSize);
  for (let k = 0; k < entries; k++) {
    const size = c.u32();
    const filterMask = c.u32();
    const start = Array.from({ length: rank }, () => c.u64());
    c.u64();
    const child = c.offset();
    if (level > 0) visitBtree(file, sizes, child, rank, out);
    else out.push({ start, address: child, size, filterMask });
  }
}
