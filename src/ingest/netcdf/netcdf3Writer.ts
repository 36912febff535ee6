/**
 * A minimal NetCDF-3 classic writer, for test fixtures: fixed dimensions plus one unlimited (record)
 * dimension, numeric variables and attributes, big-endian as the format requires.
 */
export type Nc3Type = 'short' | 'int' | 'float' | 'double';
const TYPE: Record<Nc3Type, { code: number; bytes: number }> = {
  short: { code: 3, bytes: 2 },
  int: { code: 4, bytes: 4 },
  float: { code: 5, bytes: 4 },
  double: { code: 6, bytes: 8 },
};

export type Nc3Attr = string | { type: Nc3Type; values: number[] };

export interface Nc3Variable {
  name: string;
  dims: string[];
  type: Nc3Type;
  attrs: Record<string, Nc3Attr>;
  data: ArrayLike<number>;
}

export interface Nc3Spec {
  /** Dimension name -> length; the record dimension's length is its number of records. */
  dims: Record<string, number>;
  recordDim?: string;
  globalAttrs: Record<string, Nc3Attr>;
  variables: Nc3Variable[];
}

class Out {
  parts: Buffer[] = [];
  int(n: number) {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    this.parts.push(b);
  }
  bytes(b: Buffer) {
    this.parts.push(b, Buffer.alloc((4 - (b.length % 4)) % 4));
  }
  name(s: string) {
    const b = Buffer.from(s, 'utf8');
    this.int(b.length);
    this.bytes(b);
  }
  get length() {
    return this.parts.reduce((n, b) => n + b.length, 0);
  }
}

function encode(type: Nc3Type, values: ArrayLike<number>): Buffer {
  const { bytes } = TYPE[type];
  const b = Buffer.alloc(values.length * bytes);
  for (let k = 0; k < values.length; k++) {
    const v = values[k]!;
    if (type === 'short') b.writeInt16BE(v, k * 2);
    else if (type === 'int') b.writeInt32BE(v, k * 4);
    else if (type === 'float') b.writeFloatBE(v, k * 4);
    else b.writeDoubleBE(v, k * 8);
  }
  return b;
}

function attrs(o: Out, list: Record<string, Nc3Attr>) {
  const entries = Object.entries(list);
  if (entries.length === 0) {
    o.int(0);
    o.int(0);
    return;
  }
  o.int(0x0c);
  o.int(entries.length);
  for (const [name, a] of entries) {
    o.name(name);
    if (typeof a === 'string') {
      o.int(2);
      const b = Buffer.from(a, 'utf8');
      o.int(b.length);
      o.bytes(b);
    } else {
      o.int(TYPE[a.type].code);
      o.int(a.values.length);
      o.bytes(encode(a.type, a.values));
    }
  }
}

/** The bytes of a NetCDF-3 classic file. */
export function netcdf3Bytes(spec: Nc3Spec): Buffer {
  const dimNames = Object.keys(spec.dims);
  const isRecord = (v: Nc3Variable) => spec.recordDim !== undefined && v.dims[0] === spec.recordDim;
  const slab = (v: Nc3Variable) => {
    const dims = isRecord(v) ? v.dims.slice(1) : v.dims;
    const n = dims.reduce((p, d) => p * spec.dims[d]!, 1) * TYPE[v.type].bytes;
    return n + ((4 - (n % 4)) % 4);
  };
  const fixed = spec.variables.filter((v) => !isRecord(v));
  const records = spec.variables.filter(isRecord);

  const header = (begins: Map<string, number>) => {
    const o = new Out();
    o.bytes(Buffer.from([0x43, 0x44, 0x46, 0x01]));
    o.int(spec.recordDim ? spec.dims[spec.recordDim]! : 0);
    o.int(0x0a);
    o.int(dimNames.length);
    for (const d of dimNames) {
      o.name(d);
      o.int(d === spec.recordDim ? 0 : spec.dims[d]!);
    }
    attrs(o, spec.globalAttrs);
    o.int(0x0b);
    o.int(spec.variables.length);
    for (const v of spec.variables) {
      o.name(v.name);
      o.int(v.dims.length);
      for (const d of v.dims) o.int(dimNames.indexOf(d));
      attrs(o, v.attrs);
      o.int(TYPE[v.type].code);
      o.int(slab(v));
      o.int(begins.get(v.name) ?? 0);
    }
    return o;
  };
  const headerLength = header(new Map()).length;
  const begins = new Map<string, number>();
  let at = headerLength;
  for (const v of fixed) {
    begins.set(v.name, at);
    at += slab(v);
  }
  for (const v of records) {
    begins.set(v.name, at);
    at += slab(v);
  }
  const o = header(begins);
  for (const v of fixed) o.bytes(encode(v.type, v.data));
  const nrec = spec.recordDim ? spec.dims[spec.recordDim]! : 0;
  for (let r = 0; r < nrec; r++) {
    for (const v of records) {
      const n = v.dims.slice(1).reduce((p, d) => p * spec.dims[d]!, 1);
      o.bytes(encode(v.type, Array.from({ length: n }, (_, k) => v.data[r * n + k]!)));
    }
  }
  return Buffer.concat(o.parts);
}
