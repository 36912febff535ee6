import fs from 'node:fs';
import h5wasm from 'h5wasm/node';
import { openDataset, type DatasetReader } from '../hdf5/dataset.js';
import { newDecodeTimes, type DecodeTimes } from '../hdf5/decodeTimes.js';
import { Hdf5Damaged, Hdf5Unsupported } from '../hdf5/fileBytes.js';
import { Hdf5Structure } from '../hdf5/hdf5Structure.js';
import { libraryReadFailure, unreadableFilter } from './hdf5Failure.js';
import { libraryBlock, missingLibraryFilter } from './libraryBlock.js';
import type { AttrValue } from './cfValues.js';
import type { GridFile, GridVariable } from './gridFile.js';

type H5Dataset = InstanceType<typeof h5wasm.Dataset>;
type H5Attrs = Record<string, { value: unknown }>;

function attrValues(attrs: H5Attrs): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  for (const [name, a] of Object.entries(attrs)) {
    let v: unknown;
    try {
      v = a.value;
    } catch {
      continue; // references (DIMENSION_LIST, REFERENCE_LIST) and other types the ingest does not use
    }
    if (typeof v === 'string') out[name] = v;
    else if (typeof v === 'number') out[name] = v;
    else if (typeof v === 'bigint') out[name] = Number(v);
    else if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      const arr = Array.from(v as unknown as ArrayLike<number | bigint>, Number);
      out[name] = arr.length === 1 ? arr[0]! : arr;
    } else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[name] = v.join('');
  }
  return out;
}

/**
 * NetCDF-4 (HDF5): names, attributes and dimensions through h5wasm (the HDF5 library); values
 * through src/ingest/hdf5/ (contiguous, compact and chunked datasets; chunks indexed by a version 1
 * B-tree, a single chunk, an implicit index or a fixed array; deflate, shuffle and Fletcher-32),
 * which reads a chunk index once and inflates chunks with Node's zlib (2-3 times less CPU per chunk
 * than the library's WebAssembly zlib). What it does not read (the extensible array and version 2
 * B-tree indexes of datasets with unlimited dimensions in newer files, filtered chunks of layout
 * version 5, other filters) is read through h5wasm, and what neither reads fails with a sentence
 * naming the variable and what it uses. Either way only the chunks a block overlaps are read.
 */
export class Hdf5File implements GridFile {
  format = 'NetCDF-4/HDF5';
  globalAttrs: Record<string, AttrValue>;
  private file: InstanceType<typeof h5wasm.File>;
  private vars = new Map<string, GridVariable>();
  private structure?: Hdf5Structure;
  private readers = new Map<string, DatasetReader | null>();
  /** Why the native reader left a variable to the library (Hdf5Unsupported's noun phrase). */
  private unsupported = new Map<string, string>();
  /** Which reader read the values: 'native' or 'h5wasm' (the last variable read). */
  valueReader: 'native' | 'h5wasm' = 'native';

  private constructor(path: string) {
    this.file = new h5wasm.File(path, 'r');
    this.globalAttrs = attrValues(this.file.attrs as H5Attrs);
  }

  static async open(path: string): Promise<Hdf5File> {
    await h5wasm.ready;
    // h5wasm reports a missing or unreadable file as a bare status code.
    fs.accessSync(path, fs.constants.R_OK);
    const structure = openStructure(path);
    let file: Hdf5File;
    try {
      file = new Hdf5File(path);
    } catch (err) {
      structure?.close();
      throw new Error(`the HDF5 library cannot open it (${err instanceof Error ? err.message : String(err)}): the file is damaged or not NetCDF-4; download it again`);
    }
    file.structure = structure;
    return file;
  }

  private dataset(name: string): H5Dataset | undefined {
    const e = this.file.get(name);
    return e instanceof h5wasm.Dataset ? e : undefined;
  }

  variableNames(): string[] {
    return this.file.keys().filter((k) => this.dataset(k) !== undefined);
  }

  variable(name: string): GridVariable | undefined {
    const cached = this.vars.get(name);
    if (cached) return cached;
    const d = this.dataset(name);
    if (!d) return undefined;
    const shape = d.shape ?? [];
    const dims = shape.map((_, k) => {
      try {
        const scales = d.get_attached_scales(k);
        return scales.length > 0 ? scales[0]!.replace(/^\//, '') : '';
      } catch {
        return ''; // no DIMENSION_LIST: the reader falls back on coordinate variable names
      }
    });
    const v: GridVariable = { name, dims, shape, chunks: d.metadata.chunks ?? null, attrs: attrValues(d.attrs as H5Attrs) };
    this.vars.set(name, v);
    return v;
  }

  readAll(name: string): Float64Array {
    const v = this.dataset(name)!.value as ArrayLike<number | bigint>;
    return Float64Array.from(v as ArrayLike<number>, Number);
  }

  readBlock(name: string, t: [number, number], i: [number, number], j: [number, number]): ArrayLike<number> {
    const native = this.native(name);
    if (native) {
      this.valueReader = 'native';
      return native.readBlock([t, i, j]);
    }
    this.valueReader = 'h5wasm';
    const d = this.dataset(name)!;
    const missing = missingLibraryFilter(d);
    if (missing) throw new Error(unreadableFilter(name, missing));
    try {
      return libraryBlock(d, [t, i, j]);
    } catch (err) {
      throw new Error(libraryReadFailure(name, this.unsupported.get(name), err));
    }
  }

  /** Time spent decoding chunks natively, summed over the variables read. */
  decodeTimes(): DecodeTimes {
    const sum = newDecodeTimes();
    for (const d of this.readers.values()) {
      if (!d) continue;
      for (const k of Object.keys(sum) as (keyof DecodeTimes)[]) sum[k] += d.times[k];
    }
    return sum;
  }

  private native(name: string): DatasetReader | undefined {
    if (!this.readers.has(name)) {
      let d: DatasetReader | null = null;
      try {
        d = this.structure ? (openDataset(this.structure, name) ?? null) : null;
      } catch (err) {
        if (err instanceof Hdf5Damaged) throw err;
        // What this reader does not decode, or metadata it cannot follow: the library reads it.
        this.unsupported.set(name, err instanceof Hdf5Unsupported ? err.message : `metadata it could not follow (${err instanceof Error ? err.message : String(err)})`);
      }
      this.readers.set(name, d);
    }
    return this.readers.get(name) ?? undefined;
  }

  close() {
    this.structure?.close();
    this.file.close();
  }
}

/**
 * The file's structure for the native reader, or undefined when it has one this reader does not
 * follow (the library then reads it). A file shorter than its superblock says is truncated.
 */
function openStructure(path: string): Hdf5Structure | undefined {
  let s: Hdf5Structure;
  try {
    s = Hdf5Structure.open(path);
  } catch {
    return undefined;
  }
  if (s.file.size < s.declaredSize) {
    const [size, declared] = [s.file.size, s.declaredSize];
    s.close();
    throw new Error(`it is truncated: its HDF5 superblock says the file is ${declared} bytes, but it has ${size}; download it again`);
  }
  return s;
}
