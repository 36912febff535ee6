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
  const out: ChunkEntry[] = [];
  if (isDefined(index.address)) visitBtree(file, sizes, index.address, shape.length, out);
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
