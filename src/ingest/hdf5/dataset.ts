import { ChunkedDataset } from './chunkedDataset.js';
import type { DecodeTimes } from './decodeTimes.js';
import type { Values } from './elements.js';
import { FlatDataset } from './flatDataset.js';
import type { ElementType, Hdf5Structure } from './hdf5Structure.js';

/** A dataset's values, read a block at a time, whichever way the file stores them. */
export interface DatasetReader {
  readonly shape: number[];
  /** The chunk shape, or null for values stored unchunked (contiguous or compact). */
  readonly chunks: number[] | null;
  readonly element: ElementType;
  times: DecodeTimes;
  /** Values over half-open index ranges, in C order, typed as stored (no fill or scale handling). */
  readBlock(ranges: [number, number][]): Values;
}

/**
 * The reader of the root group's dataset `name` for its storage layout, or undefined when the name
 * is not a dataset. Raises Hdf5Unsupported for what this reader does not decode.
 */
export function openDataset(h5: Hdf5Structure, name: string): DatasetReader | undefined {
  const info = h5.dataset(name);
  if (!info) return undefined;
  return info.layout.kind === 'chunked' ? new ChunkedDataset(h5, info) : new FlatDataset(h5, info);
}
