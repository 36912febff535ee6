import os from 'node:os';
import { Hdf5Unsupported } from './fileBytes.js';
import type { DatasetInfo, ElementType } from './hdf5Structure.js';

export type Values = Float32Array | Float64Array | Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array;
export type ValuesType = { new (buf: ArrayBuffer, offset: number, length: number): Values; new (length: number): Values };

export const LITTLE_ENDIAN_HOST = os.endianness() === 'LE';

/**
 * The typed array a dataset's values are read into. Values are copied from the file as they are,
 * so only the host's byte order is read; 8-byte integers would lose precision as numbers.
 */
export function valuesType(e: ElementType): ValuesType {
  if (!e.littleEndian || !LITTLE_ENDIAN_HOST) throw new Hdf5Unsupported('big-endian values');
  if (e.kind === 'float') return e.size === 4 ? Float32Array : Float64Array;
  switch (e.size) {
    case 1:
      return e.signed ? Int8Array : Uint8Array;
    case 2:
      return e.signed ? Int16Array : Uint16Array;
    case 4:
      return e.signed ? Int32Array : Uint32Array;
  }
  throw new Hdf5Unsupported(`${e.size}-byte integers`);
}

/** What a value never written holds: the dataset's fill value, else HDF5's default of zero bytes. */
export function fillValue(info: DatasetInfo, Type: ValuesType): number {
  if (!info.fill) return 0;
  // A copy of its own: a view into a pooled Buffer need not be aligned for the typed array.
  return new Type(new Uint8Array(info.fill).buffer, 0, 1)[0]!;
}

export const product = (dims: number[], start = 1) => dims.reduce((a, b) => a * b, start);
