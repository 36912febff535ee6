import { fillValue, product, valuesType, type Values, type ValuesType } from './elements.js';
import { Hdf5Damaged } from './fileBytes.js';
import { isDefined } from './objectHeader.js';
import type { DatasetInfo, Hdf5Structure } from './hdf5Structure.js';
import { newDecodeTimes, type DecodeTimes } from './decodeTimes.js';

/**
 * A dataset stored whole in row-major order, unfiltered (the format allows no filters here):
 * contiguous, in one run of the file (what netCDF-C writes when no chunking is asked for), or
 * compact, inside the object header. A block is read as runs of consecutive values, never the
 * whole dataset: a contiguous CONUS year is over a gigabyte. A contiguous dataset never written
 * has no address and reads as its fill value.
 */
export class FlatDataset {
  readonly shape: number[];
  readonly chunks = null;
  readonly element;
  times: DecodeTimes = newDecodeTimes();
  private readonly Type: ValuesType;
  /** Copies stored bytes from `offset` into `into`; undefined when the values were never written. */
  private readonly bytes?: (offset: number, into: Buffer) => void;
  private readonly fill: number;

  constructor(h5: Hdf5Structure, info: DatasetInfo) {
    this.shape = info.shape;
    this.element = info.element;
    this.Type = valuesType(info.element);
    this.fill = fillValue(info, this.Type);
    const size = product(info.shape, info.element.size);
    const layout = info.layout;
    if (layout.kind === 'compact') {
      if (layout.data.length < size) {
        throw new Hdf5Damaged(`variable ${info.name} is stored compact with ${layout.data.length} bytes, but its ${info.shape.join(' x ')} values need ${size}: the file is damaged`);
      }
      this.bytes = (offset, into) => layout.data.copy(into, 0, offset, offset + into.length);
    } else if (layout.kind === 'contiguous') {
      const file = h5.file;
      if (isDefined(layout.address) && layout.address + size > file.size) {
        throw new Hdf5Damaged(
          `variable ${info.name}'s values (bytes ${layout.address} to ${layout.address + size}) run past the end of the file (${file.size} bytes): the file is truncated or damaged; download it again`,
        );
      }
      if (isDefined(layout.address)) this.bytes = (offset, into) => void file.read(layout.address + offset, into.length, into);
    } else {
      throw new Error(`FlatDataset: ${info.name} is chunked`);
    }
  }

  /** Values over half-open index ranges, in C order, typed as stored (no fill or scale handling). */
  readBlock(ranges: [number, number][]): Values {
    const rank = this.shape.length;
    if (ranges.length !== rank) throw new Error(`readBlock: ${ranges.length} ranges for ${rank} dimensions`);
    const extent = ranges.map(([a, b]) => b - a);
    const out = new this.Type(product(extent));
    if (out.length === 0) return out;
    const bytes = this.bytes;
    if (!bytes) return out.fill(this.fill);
    // The dimensions after `split` are whole in the block: each run spans them and split's range.
    let split = rank - 1;
    while (split > 0 && extent[split] === this.shape[split]) split--;
    const run = product(extent.slice(split));
    const strides = this.shape.map((_, k) => product(this.shape.slice(k + 1)));
    const size = this.element.size;
    const view = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
    const idx = ranges.slice(0, split).map(([a]) => a);
    let o = 0;
    const t0 = performance.now();
    for (;;) {
      let at = ranges[split]![0] * strides[split]!;
      for (let k = 0; k < split; k++) at += idx[k]! * strides[k]!;
      bytes(at * size, view.subarray(o * size, (o + run) * size));
      this.times.bytesRead += run * size;
      o += run;
      let k = split - 1;
      while (k >= 0 && idx[k] === ranges[k]![1] - 1) idx[k] = ranges[k--]![0];
      if (k < 0) break;
      idx[k]!++;
    }
    this.times.read += (performance.now() - t0) / 1000;
    return out;
  }
}
