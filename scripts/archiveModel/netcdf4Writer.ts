import fs from 'node:fs';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { fletcher32 } from '../../src/ingest/hdf5/filters.js';

/**
 * Writes NetCDF-4 files (HDF5) as the publishers' are stored: data variables in chunks, each
 * byte-shuffled and deflated, streamed chunk by chunk so that a full-size file (1440 x 600 x 365
 * float32, 1.26 GB before compression) never sits in memory; coordinates are dimension scales
 * attached to the data variable, so netCDF and the HDF5 library see named dimensions. Also the
 * other storage a reader meets: chunks unfiltered or with a Fletcher-32 checksum, contiguous
 * values (written or never written) and compact values (inside the object header).
 *
 * The layout is the oldest HDF5 understands (superblock 0, version 1 object headers, a symbol
 * table for the root group, version 1 B-trees for the chunks), which every reader accepts; chunk
 * data comes first and all metadata is written at the end, then the superblock at offset 0.
 * The HDF5 library (h5wasm in the tests) reads these files back.
 */

export type NumberType = 'f4' | 'f8' | 'i2' | 'i4';
export type AttrValue = string | { type: NumberType; values: number[] };

export interface DataVariable {
  name: string;
  dims: string[];
  type: NumberType;
  shape: number[];
  attrs: Record<string, AttrValue>;
  /** The HDF5 fill value (netCDF's _FillValue). */
  fill?: number;
}

export interface ChunkedVariable extends DataVariable {
  chunks: number[];
  shuffle: boolean;
  /** 0: no deflate filter. */
  deflateLevel: number;
  /** A Fletcher-32 checksum after each chunk (HDF5 filter 3), over the bytes as stored. */
  fletcher32?: boolean;
  /**
   * Lists filter TEST_FILTER_ID last in the pipeline, as if it had been applied (it leaves the bytes
   * as they are): a filter no reader has, as a file compressed with a plugin the reader lacks is.
   */
  testFilter?: boolean;
}

/** A filter id from the range HDF5 reserves for testing (256-511): registered to nobody. */
export const TEST_FILTER_ID = 300;

const O = 8; // offsets and lengths: 8 bytes
const UNDEF = 0xffffffffffffffffn;
const GROUP_LEAF_K = 8;
const GROUP_INTERNAL_K = 16;
const CHUNK_K = 32;
const SUPERBLOCK_SIZE = 96;
/** A local heap's "no free block" (HDF5's H5HL_FREE_NULL). */
const FREE_LIST_END = 1;
const deflate = promisify(zlib.deflate);

const typeSize: Record<NumberType, number> = { f4: 4, f8: 8, i2: 2, i4: 4 };
/** Compact values live in a layout message, whose size is a 16-bit number. */
const COMPACT_LIMIT = 0xffff - 16;

/** A growable little-endian byte buffer. */
class Bytes {
  private buf = Buffer.alloc(256);
  length = 0;
  private grow(n: number) {
    if (this.length + n <= this.buf.length) return;
    const next = Buffer.alloc(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }
  u8(v: number) {
    this.grow(1);
    this.buf.writeUInt8(v, this.length++);
    return this;
  }
  u16(v: number) {
    this.grow(2);
    this.buf.writeUInt16LE(v, this.length);
    this.length += 2;
    return this;
  }
  u32(v: number) {
    this.grow(4);
    this.buf.writeUInt32LE(v >>> 0, this.length);
    this.length += 4;
    return this;
  }
  u64(v: number | bigint) {
    this.grow(8);
    this.buf.writeBigUInt64LE(BigInt(v), this.length);
    this.length += 8;
    return this;
  }
  bytes(b: Uint8Array) {
    this.grow(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
    return this;
  }
  zeros(n: number) {
    this.grow(n);
    this.buf.fill(0, this.length, this.length + n);
    this.length += n;
    return this;
  }
  pad(multiple: number) {
    return this.zeros((multiple - (this.length % multiple)) % multiple);
  }
  done(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

function datatypeMessage(t: NumberType | { string: number } | 'ref' | 'vlen-ref'): Buffer {
  const b = new Bytes();
  if (t === 'f4' || t === 'f8') {
    const f8 = t === 'f8';
    // Version 1, class 1 (float); little-endian, implied mantissa bit (normalization 2), sign bit.
    b.u8(0x11).u8(0x20).u8(f8 ? 63 : 31).u8(0).u32(f8 ? 8 : 4);
    b.u16(0).u16(f8 ? 64 : 32).u8(f8 ? 52 : 23).u8(f8 ? 11 : 8).u8(0).u8(f8 ? 52 : 23).u32(f8 ? 1023 : 127);
  } else if (t === 'i2' || t === 'i4') {
    b.u8(0x10).u8(0x08).u8(0).u8(0).u32(typeSize[t]).u16(0).u16(typeSize[t] * 8);
  } else if (t === 'ref') {
    b.u8(0x17).u8(0).u8(0).u8(0).u32(O);
  } else if (t === 'vlen-ref') {
    // A variable-length sequence of object references (HDF5's DIMENSION_LIST).
    b.u8(0x19).u8(0).u8(0).u8(0).u32(4 + O + 4).bytes(datatypeMessage('ref'));
  } else {
    // Fixed-length ASCII, NUL-terminated: netCDF reads it as a text (NC_CHAR) attribute.
    b.u8(0x13).u8(0).u8(0).u8(0).u32(t.string);
  }
  return b.done();
}

/** A version 1 dataspace: scalar (no dims) or simple with fixed maximum dims. */
function dataspaceMessage(dims: number[]): Buffer {
  const b = new Bytes().u8(1).u8(dims.length).u8(0).u8(0).u32(0);
  for (const d of dims) b.u64(d);
  return b.done();
}

function numberBytes(type: NumberType, values: number[]): Buffer {
  const buf = Buffer.alloc(values.length * typeSize[type]);
  values.forEach((v, k) => {
    if (type === 'f4') buf.writeFloatLE(v, k * 4);
    else if (type === 'f8') buf.writeDoubleLE(v, k * 8);
    else if (type === 'i2') buf.writeInt16LE(v, k * 2);
    else buf.writeInt32LE(v, k * 4);
  });
  return buf;
}

/** A version 1 attribute message. */
function attributeMessage(name: string, type: Buffer, space: Buffer, data: Buffer): Buffer {
  const nameBytes = Buffer.from(`${name}\0`, 'latin1');
  const b = new Bytes().u8(1).u8(0).u16(nameBytes.length).u16(type.length).u16(space.length);
  b.bytes(nameBytes).pad(8).bytes(type).pad(8).bytes(space).pad(8).bytes(data);
  return b.done();
}

function attribute(name: string, value: AttrValue): Buffer {
  if (typeof value === 'string') {
    const text = Buffer.from(`${value}\0`, 'latin1');
    return attributeMessage(name, datatypeMessage({ string: text.length }), dataspaceMessage([]), text);
  }
  const space = value.values.length === 1 ? dataspaceMessage([]) : dataspaceMessage([value.values.length]);
  return attributeMessage(name, datatypeMessage(value.type), space, numberBytes(value.type, value.values));
}

/** A version 1 object header holding `messages` ([type, body]), each padded to 8 bytes. */
function objectHeader(messages: [number, Buffer][]): Buffer {
  const body = new Bytes();
  for (const [type, data] of messages) {
    const size = Math.ceil(data.length / 8) * 8;
    body.u16(type).u16(size).u8(type === 0x0003 || type === 0x0005 ? 1 : 0).zeros(3).bytes(data).pad(8);
  }
  const b = new Bytes().u8(1).u8(0).u16(messages.length).u32(1).u32(body.length).zeros(4);
  return Buffer.concat([b.done(), body.done()]);
}

/** Shuffles bytes as HDF5's filter 2 does: every element's first byte, then every second byte ... */
export function shuffleBytes(input: Uint8Array, size: number): Buffer {
  const n = Math.floor(input.length / size);
  const out = Buffer.allocUnsafe(input.length);
  for (let b = 0; b < size; b++) {
    const to = b * n;
    for (let i = 0; i < n; i++) out[to + i] = input[i * size + b]!;
  }
  out.set(input.subarray(n * size), n * size);
  return out;
}

interface Written {
  name: string;
  header: number;
}

interface ChunkRecord {
  start: number[];
  address: number;
  size: number;
}

export class Netcdf4Writer {
  private pos = SUPERBLOCK_SIZE;
  private readonly written: Written[] = [];
  private readonly scales = new Map<string, number>();
  private readonly globals: [string, AttrValue][] = [];

  private constructor(
    readonly path: string,
    private readonly fd: number,
  ) {}

  static create(path: string): Netcdf4Writer {
    const fd = fs.openSync(path, 'w');
    fs.writeSync(fd, Buffer.alloc(SUPERBLOCK_SIZE), 0, SUPERBLOCK_SIZE, 0);
    return new Netcdf4Writer(path, fd);
  }

  private append(buf: Uint8Array): number {
    const at = this.pos;
    fs.writeSync(this.fd, buf, 0, buf.length, at);
    this.pos += buf.length;
    return at;
  }

  globalAttr(name: string, value: AttrValue) {
    this.globals.push([name, value]);
  }

  /** A 1-D coordinate variable that is also the dimension (scale) of the same name. */
  coordinate(name: string, values: Float64Array, attrs: Record<string, AttrValue>) {
    const data = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
    const address = this.append(data);
    const layout = new Bytes().u8(3).u8(1).u64(address).u64(data.length).done();
    const header = this.append(
      objectHeader([
        [0x0001, dataspaceMessage([values.length])],
        [0x0003, datatypeMessage('f8')],
        [0x0005, fillMessage(2)],
        [0x0008, layout],
        ...Object.entries({ ...attrs, CLASS: 'DIMENSION_SCALE', NAME: name }).map(([k, v]) => [0x000c, attribute(k, v)] as [number, Buffer]),
      ]),
    );
    this.scales.set(name, header);
    this.written.push({ name, header });
  }

  /**
   * A chunked variable whose chunks `chunkData` gives in row-major order of chunk positions
   * (full chunks; edge chunks padded), compressed `inFlight` at a time on zlib's thread pool.
   */
  async chunked(v: ChunkedVariable, chunkData: (start: number[]) => Uint8Array, inFlight = 4): Promise<void> {
    const counts = v.shape.map((n, k) => Math.ceil(n / v.chunks[k]!));
    const total = counts.reduce((a, b) => a * b, 1);
    const size = typeSize[v.type];
    const records: ChunkRecord[] = [];
    const pending: Promise<Buffer>[] = [];
    const startOf = (n: number) => {
      const start = new Array<number>(v.shape.length);
      for (let k = v.shape.length - 1; k >= 0; k--) {
        start[k] = (n % counts[k]!) * v.chunks[k]!;
        n = Math.floor(n / counts[k]!);
      }
      return start;
    };
    const compress = async (raw: Uint8Array): Promise<Buffer> => {
      const shuffled = v.shuffle ? shuffleBytes(raw, size) : Buffer.from(raw);
      const stored = v.deflateLevel > 0 ? await deflate(shuffled, { level: v.deflateLevel }) : shuffled;
      if (!v.fletcher32) return stored;
      const sum = Buffer.alloc(4);
      sum.writeUInt32LE(fletcher32(stored));
      return Buffer.concat([stored, sum]);
    };
    let next = 0;
    for (let n = 0; n < total; n++) {
      while (next < total && next < n + inFlight) pending.push(compress(chunkData(startOf(next++))));
      const bytes = await pending.shift()!;
      records.push({ start: startOf(n), address: this.append(bytes), size: bytes.length });
    }
    const btree = this.chunkBtree(records, v.shape.length, v.chunks);
    const layout = new Bytes().u8(3).u8(2).u8(v.shape.length + 1).u64(btree);
    for (const c of v.chunks) layout.u32(c);
    layout.u32(size);
    const filters = filterPipeline(v, size);
    this.variableHeader(v, layout.done(), 3, filters);
  }

  /**
   * A variable stored whole: contiguous (`data` after the metadata written so far, or no address
   * at all when `data` is undefined: never written, all fill value) or compact (inside its object
   * header, at most about 64 KB). The format allows no filters on either.
   */
  stored(v: DataVariable, layout: 'contiguous' | 'compact', data: Uint8Array | undefined) {
    const bytes = v.shape.reduce((a, b) => a * b, typeSize[v.type]);
    if (data && data.length !== bytes) throw new Error(`${v.name}: ${data.length} bytes given for ${v.shape.join(' x ')} ${v.type} values (${bytes} bytes)`);
    const message = new Bytes().u8(3);
    if (layout === 'compact') {
      if (!data) throw new Error(`${v.name}: compact values are written with the header; give them`);
      if (bytes > COMPACT_LIMIT) throw new Error(`${v.name}: ${bytes} bytes are too many for compact storage (at most ${COMPACT_LIMIT})`);
      message.u8(0).u16(bytes).bytes(data);
    } else {
      message.u8(1).u64(data ? this.append(data) : UNDEF).u64(bytes);
    }
    // Compact values are there from the start (allocation early); contiguous ones when written (late).
    this.variableHeader(v, message.done(), layout === 'compact' ? 1 : 2);
  }

  /** The object header of a data variable: its space, type, fill value, layout, filters and attributes. */
  private variableHeader(v: DataVariable, layout: Buffer, allocation: 1 | 2 | 3, filters?: Buffer) {
    const attrs: [number, Buffer][] = Object.entries(v.attrs).map(([k, val]) => [0x000c, attribute(k, val)]);
    if (v.fill !== undefined) attrs.unshift([0x000c, attribute('_FillValue', { type: v.type, values: [v.fill] })]);
    attrs.push([0x000c, this.dimensionList(v.dims)]);
    const header = this.append(
      objectHeader([
        [0x0001, dataspaceMessage(v.shape)],
        [0x0003, datatypeMessage(v.type)],
        [0x0005, fillMessage(allocation, v.fill === undefined ? undefined : numberBytes(v.type, [v.fill]))],
        [0x0008, layout],
        ...(filters ? [[0x000b, filters] as [number, Buffer]] : []),
        ...attrs,
      ]),
    );
    this.written.push({ name: v.name, header });
  }

  /**
   * DIMENSION_LIST: per dimension, a variable-length list of one object reference to its scale,
   * held in a global heap collection.
   */
  private dimensionList(dims: string[]): Buffer {
    const heap = new Bytes().bytes(Buffer.from('GCOL', 'latin1')).u8(1).zeros(3).u64(4096);
    dims.forEach((d, k) => {
      const scale = this.scales.get(d);
      if (scale === undefined) throw new Error(`dimension ${d} has no coordinate variable written before it`);
      heap.u16(k + 1).u16(1).u32(0).u64(O).u64(scale);
    });
    // The rest of the collection is free space (object 0).
    const free = 4096 - heap.length;
    heap.u16(0).u16(0).u32(0).u64(free).zeros(free - 16);
    const collection = this.append(heap.done());
    const data = new Bytes();
    dims.forEach((_, k) => data.u32(1).u64(collection).u32(k + 1));
    return attributeMessage('DIMENSION_LIST', datatypeMessage('vlen-ref'), dataspaceMessage([dims.length]), data.done());
  }

  /** A version 1 B-tree (type 1) over the chunks, built bottom-up; returns its root's address. */
  private chunkBtree(records: ChunkRecord[], rank: number, chunks: number[]): number {
    const keySize = 8 + 8 * (rank + 1);
    const nodeSize = 8 + 2 * O + (2 * CHUNK_K + 1) * keySize + 2 * CHUNK_K * O;
    type Entry = { key: ChunkRecord; address: number; last: number[] };
    const writeKey = (b: Bytes, size: number, start: number[]) => {
      b.u32(size).u32(0);
      for (const s of start) b.u64(s);
      b.u64(0);
    };
    // Level 0 children are the chunks; the key after the last one lies one chunk beyond it.
    let level = 0;
    let entries: Entry[] = records.map((r) => ({ key: r, address: r.address, last: r.start.map((s, k) => s + chunks[k]!) }));
    if (entries.length === 0) return this.append(this.btreeNode(new Bytes(), 0, 0, [], writeKey, nodeSize, [0, 0, 0].slice(0, rank)));
    for (;;) {
      const parents: Entry[] = [];
      for (let i = 0; i < entries.length; i += 2 * CHUNK_K) {
        const group = entries.slice(i, i + 2 * CHUNK_K);
        const last = group[group.length - 1]!.last;
        const address = this.append(this.btreeNode(new Bytes(), level, group.length, group, writeKey, nodeSize, last));
        parents.push({ key: group[0]!.key, address, last });
      }
      if (parents.length === 1) return parents[0]!.address;
      entries = parents;
      level++;
    }
  }

  private btreeNode(
    b: Bytes,
    level: number,
    count: number,
    group: { key: ChunkRecord; address: number }[],
    writeKey: (b: Bytes, size: number, start: number[]) => void,
    nodeSize: number,
    last: number[],
  ): Buffer {
    b.bytes(Buffer.from('TREE', 'latin1')).u8(1).u8(level).u16(count).u64(UNDEF).u64(UNDEF);
    for (const e of group) {
      writeKey(b, e.key.size, e.key.start);
      b.u64(e.address);
    }
    writeKey(b, 0, last);
    return b.zeros(nodeSize - b.length).done();
  }

  /** The root group (a symbol table), then the superblock. */
  close() {
    const rootAttrs = this.globals.map(([k, v]) => [0x000c, attribute(k, v)] as [number, Buffer]);
    const members = [...this.written].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (members.length > 2 * GROUP_LEAF_K) throw new Error(`at most ${2 * GROUP_LEAF_K} variables per file`);
    // The local heap: "" at offset 0 (the B-tree's left key), then each name, 8-byte aligned.
    const names = new Bytes().zeros(8);
    const offsets = members.map((m) => {
      const at = names.length;
      names.bytes(Buffer.from(`${m.name}\0`, 'latin1')).pad(8);
      return at;
    });
    const heapData = this.append(names.done());
    const heap = this.append(new Bytes().bytes(Buffer.from('HEAP', 'latin1')).u8(0).zeros(3).u64(names.length).u64(FREE_LIST_END).u64(heapData).done());
    const snod = new Bytes().bytes(Buffer.from('SNOD', 'latin1')).u8(1).u8(0).u16(members.length);
    members.forEach((m, k) => snod.u64(offsets[k]!).u64(m.header).u32(0).u32(0).zeros(16));
    snod.zeros(8 + 2 * GROUP_LEAF_K * (2 * O + 24) - snod.length);
    const snodAt = this.append(snod.done());
    const tree = new Bytes().bytes(Buffer.from('TREE', 'latin1')).u8(0).u8(0).u16(1).u64(UNDEF).u64(UNDEF);
    tree.u64(0).u64(snodAt).u64(offsets[offsets.length - 1] ?? 0);
    tree.zeros(8 + 2 * O + (2 * GROUP_INTERNAL_K + 1) * O + 2 * GROUP_INTERNAL_K * O - tree.length);
    const btree = this.append(tree.done());
    const root = this.append(objectHeader([[0x0011, new Bytes().u64(btree).u64(heap).done()], ...rootAttrs]));

    const sb = new Bytes().bytes(Buffer.from('\x89HDF\r\n\x1a\n', 'latin1'));
    sb.u8(0).u8(0).u8(0).u8(0).u8(0).u8(O).u8(O).u8(0).u16(GROUP_LEAF_K).u16(GROUP_INTERNAL_K).u32(0);
    sb.u64(0).u64(UNDEF).u64(this.pos).u64(UNDEF);
    // The root group's symbol table entry, caching its B-tree and heap.
    sb.u64(0).u64(root).u32(1).u32(0).u64(btree).u64(heap);
    fs.writeSync(this.fd, sb.done(), 0, SUPERBLOCK_SIZE, 0);
    fs.closeSync(this.fd);
  }

  /** Closes and removes a file left unfinished. */
  abort() {
    fs.closeSync(this.fd);
    fs.rmSync(this.path, { force: true });
  }
}

/**
 * A version 1 filter pipeline message: the filters in the order they were applied when writing
 * (shuffle, deflate, the test filter, Fletcher-32 over the bytes as stored), or undefined for none.
 * Each entry: id, name length, flags (bit 0: optional), client values, the name padded to 8 bytes,
 * the values padded to an even count.
 */
function filterPipeline(v: ChunkedVariable, size: number): Buffer | undefined {
  const entries: { id: number; name?: string; optional: boolean; values: number[] }[] = [];
  if (v.shuffle) entries.push({ id: 2, optional: true, values: [size] });
  if (v.deflateLevel > 0) entries.push({ id: 1, optional: false, values: [v.deflateLevel] });
  if (v.testFilter) entries.push({ id: TEST_FILTER_ID, name: 'fixture test filter', optional: false, values: [] });
  if (v.fletcher32) entries.push({ id: 3, optional: false, values: [] });
  if (entries.length === 0) return undefined;
  const b = new Bytes().u8(1).u8(entries.length).zeros(6);
  for (const e of entries) {
    const name = e.name ? Buffer.from(`${e.name}\0`, 'latin1') : Buffer.alloc(0);
    const padded = Math.ceil(name.length / 8) * 8;
    b.u16(e.id).u16(padded).u16(e.optional ? 1 : 0).u16(e.values.length).bytes(name).zeros(padded - name.length);
    for (const x of e.values) b.u32(x);
    if (e.values.length % 2 === 1) b.u32(0);
  }
  return b.done();
}

/** A version 2 fill value message: space allocated early (1), late (2) or incrementally (3, chunks), written if set. */
function fillMessage(allocation: 1 | 2 | 3, value?: Buffer): Buffer {
  const b = new Bytes().u8(2).u8(allocation).u8(2).u8(value ? 1 : 0);
  if (value) b.u32(value.length).bytes(value);
  return b.done();
}
