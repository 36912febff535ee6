import fs from 'node:fs';
import { NetCDFReader } from 'netcdfjs';
import type { AttrValue } from './cfValues.js';
import type { GridFile, GridVariable } from './gridFile.js';

interface Nc3Variable {
  name: string;
  dimensions: number[];
  attributes: { name: string; type: string; value: unknown }[];
  type: string;
  size: number;
  offset: number;
  record: boolean;
}

const TYPE_BYTES: Record<string, number> = { byte: 1, short: 2, int: 4, float: 4, double: 8 };

function attrValues(list: { name: string; value: unknown }[]): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  for (const a of list) {
    const v = a.value;
    if (typeof v === 'string') out[a.name] = v.replace(/\0+$/, '');
    else if (typeof v === 'number') out[a.name] = v;
    else if (Array.isArray(v) || ArrayBuffer.isView(v)) {
      const arr = Array.from(v as ArrayLike<number>, Number);
      out[a.name] = arr.length === 1 ? arr[0]! : arr;
    }
  }
  return out;
}

/**
 * NetCDF-3 classic and 64-bit offset files: netcdfjs parses the header (read from the start of the
 * file, growing until it fits); values are read straight from their byte offsets, so only the rows
 * asked for are read, never the whole file.
 */
export class Netcdf3File implements GridFile {
  format: string;
  globalAttrs: Record<string, AttrValue>;
  private fd: number;
  private dims: { name: string; size: number }[];
  private vars: Map<string, Nc3Variable>;
  private numRecords: number;
  private recordStep: number;
  private recordDim: number | undefined;

  constructor(path: string) {
    this.fd = fs.openSync(path, 'r');
    const size = fs.fstatSync(this.fd).size;
    let reader: NetCDFReader | undefined;
    for (let n = 64 * 1024; ; n *= 4) {
      const head = Buffer.alloc(Math.min(n, size));
      fs.readSync(this.fd, head, 0, head.length, 0);
      try {
        reader = new NetCDFReader(head);
        break;
      } catch (err) {
        // A header longer than the bytes read runs off the end: read more, up to the whole file.
        if (head.length >= size || !(err instanceof RangeError || /offset|bounds|range/i.test(String(err)))) {
          fs.closeSync(this.fd);
          throw err;
        }
      }
    }
    const h = reader.header;
    this.format = h.version === 2 ? 'NetCDF-3 64-bit offset' : 'NetCDF-3 classic';
    this.dims = h.dimensions;
    this.vars = new Map((h.variables as unknown as Nc3Variable[]).map((v) => [v.name, v]));
    this.numRecords = h.recordDimension.length;
    this.recordStep = h.recordDimension.recordStep ?? 0;
    this.recordDim = h.recordDimension.id;
    this.globalAttrs = attrValues(h.globalAttributes);
  }

  variableNames(): string[] {
    return [...this.vars.keys()];
  }

  private shapeOf(v: Nc3Variable): number[] {
    return v.dimensions.map((d) => (d === this.recordDim ? this.numRecords : this.dims[d]!.size));
  }

  variable(name: string): GridVariable | undefined {
    const v = this.vars.get(name);
    if (!v) return undefined;
    return { name, dims: v.dimensions.map((d) => this.dims[d]!.name), shape: this.shapeOf(v), chunks: null, attrs: attrValues(v.attributes) };
  }

  /** Reads `count` values starting at element `index` of one record (or of the whole variable). */
  private readRun(v: Nc3Variable, record: number, index: number, count: number, out: Float64Array, at: number) {
    const bytes = TYPE_BYTES[v.type];
    if (bytes === undefined) throw new Error(`variable ${v.name} has type ${v.type}, which holds no numbers`);
    const pos = v.offset + (v.record ? record * this.recordStep : 0) + index * bytes;
    const buf = Buffer.alloc(count * bytes);
    fs.readSync(this.fd, buf, 0, buf.length, pos);
    for (let k = 0; k < count; k++) {
      const o = k * bytes;
      out[at + k] =
        v.type === 'float' ? buf.readFloatBE(o)
        : v.type === 'double' ? buf.readDoubleBE(o)
        : v.type === 'short' ? buf.readInt16BE(o)
        : v.type === 'int' ? buf.readInt32BE(o)
        : buf.readInt8(o);
    }
  }

  readAll(name: string): Float64Array {
    const v = this.vars.get(name)!;
    const shape = this.shapeOf(v);
    if (v.record) {
      const per = shape.slice(1).reduce((a, b) => a * b, 1);
      const out = new Float64Array(shape[0]! * per);
      for (let r = 0; r < shape[0]!; r++) this.readRun(v, r, 0, per, out, r * per);
      return out;
    }
    const out = new Float64Array(shape.reduce((a, b) => a * b, 1));
    this.readRun(v, 0, 0, out.length, out, 0);
    return out;
  }

  readBlock(name: string, t: [number, number], i: [number, number], j: [number, number]): ArrayLike<number> {
    const v = this.vars.get(name)!;
    const [, ni, nj] = this.shapeOf(v) as [number, number, number];
    const [ti, ii, ji] = [t[1] - t[0], i[1] - i[0], j[1] - j[0]];
    const out = new Float64Array(ti * ii * ji);
    for (let a = 0; a < ti; a++) {
      for (let b = 0; b < ii; b++) {
        const tt = t[0] + a;
        const within = (i[0] + b) * nj + j[0];
        if (v.record) this.readRun(v, tt, within, ji, out, (a * ii + b) * ji);
        else this.readRun(v, 0, tt * ni * nj + within, ji, out, (a * ii + b) * ji);
      }
    }
    return out;
  }

  close() {
    fs.closeSync(this.fd);
  }
}
