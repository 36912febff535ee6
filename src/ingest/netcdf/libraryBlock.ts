import h5wasm, { Module } from 'h5wasm/node';
import { product, valuesType, type Values } from '../hdf5/elements.js';
import { filterLabel } from '../hdf5/filters.js';

type H5Dataset = InstanceType<typeof h5wasm.Dataset>;

/** The filters the HDF5 library inside h5wasm has built in (no plugins are loaded). */
const LIBRARY_FILTERS = new Set([1, 2, 3, 5, 6]);

/** 'filter 32015 (Zstandard)' for the first filter of the dataset the library cannot apply, else undefined. */
export function missingLibraryFilter(d: H5Dataset): string | undefined {
  const f = d.filters.find((x) => !LIBRARY_FILTERS.has(x.id));
  return f ? filterLabel(f.id, f.name) : undefined;
}

/**
 * A block of a numeric dataset read by the HDF5 library, checking the library's status: h5wasm's
 * own slice() ignores it and hands back whatever the buffer held when a read fails (a missing
 * filter, a damaged chunk), which would be ingested as values.
 */
export function libraryBlock(d: H5Dataset, ranges: [number, number][]): Values {
  const m = d.metadata;
  if (m.type !== Module.H5T_class_t.H5T_INTEGER.value && m.type !== Module.H5T_class_t.H5T_FLOAT.value) {
    throw new Error('its values are neither integers nor floating point numbers');
  }
  // The library converts to little-endian in memory.
  const Type = valuesType({ kind: m.type === Module.H5T_class_t.H5T_FLOAT.value ? 'float' : 'int', size: m.size, signed: m.signed, littleEndian: true });
  const count = ranges.map(([a, b]) => BigInt(b - a));
  const n = product(ranges.map(([a, b]) => b - a));
  if (n === 0) return new Type(0);
  const bytes = n * m.size;
  const ptr = Module._malloc(bytes);
  if (!ptr) throw new Error(`the HDF5 library could not allocate ${bytes} bytes for the block`);
  try {
    const status = Module.get_dataset_data(d.file_id, d.path, count, ranges.map(([a]) => BigInt(a)), ranges.map(() => 1n), BigInt(ptr));
    if (status < 0) throw new Error('the HDF5 library failed to read it (its messages above say why)');
    return new Type(Module.HEAPU8.slice(ptr, ptr + bytes).buffer, 0, n);
  } finally {
    Module._free(ptr);
  }
}
