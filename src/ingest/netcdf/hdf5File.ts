import fs from 'node:fs';
import h5wasm from 'h5wasm/node';
import { ChunkedDataset, newDecodeTimes, type DecodeTimes } from '../hdf5/chunkedDataset.js';
import { Hdf5Structure } from '../hdf5/hdf5Structure.js';
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
 * through ChunkedDataset, which reads the chunk index once and inflates chunks with Node's zlib
 * (2-3 times less CPU per chunk than the library's WebAssembly zlib). A layout ChunkedDataset does
 * not read (a B-tree of version 2, a filter other than deflate, shuffle and Fletcher-32, ...)
 * is read through h5wasm. Either way only the chunks a block overlaps are read.
 */
export class Hdf5File implements GridFile {
  format = 'NetCDF-4/HDF5';
  globalAttrs: Record<string, AttrValue>;
  private file: InstanceType<typeof h5wasm.File>;
  private vars = new Map<string, GridVariable>();
  private structure?: Hdf5Structure | null;
  private chunked = new Map<string, ChunkedDataset | null>();
  /** Which reader read the values: 'native' or 'h5wasm' (the last variable read). */
  valueReader: 'native' | 'h5wasm' = 'native';

  private constructor(private readonly path: string) {
    this.file = new h5wasm.File(path, 'r');
    this.globalAttrs = attrValues(this.file.attrs as H5Attrs);
  }

  static async open(path: string): Promise<Hdf5File> {
    await h5wasm.ready;
    // h5wasm reports a missing or unreadable file as a bare status code.
    fs.accessSync(path, fs.constants.R_OK);
    return new Hdf5File(path);
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
    return d.slice([t, i, j]) as unknown as ArrayLike<number>;
  }

  /** Time spent decoding chunks natively, summed over the variables read. */
  decodeTimes(): DecodeTimes {
    const sum = newDecodeTimes();
    for (const d of this.chunked.values()) {
      if (!d) continue;
      for (const k of Object.keys(sum) as (keyof DecodeTimes)[]) sum[k] += d.times[k];
    }
    return sum;
  }

  private native(name: string): ChunkedDataset | undefined {
    if (!this.chunked.has(name)) {
      let d: ChunkedDataset | null = null;
      try {
        if (this.structure === undefined) this.structure = Hdf5Structure.open(this.path);
        d = this.structure ? (ChunkedDataset.open(this.structure, name) ?? null) : null;
      } catch {
        // Hdf5Unsupported, or metadata this reader cannot follow: the library reads it (and says what is wrong with it).
        if (this.structure === undefined) this.structure = null;
      }
      this.chunked.set(name, d);
    }
    return this.chunked.get(name) ?? undefined;
  }

  close() {
    this.structure?.close();
    this.file.close();
  }
}
