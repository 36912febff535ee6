import { Cursor, FileBytes, Hdf5Unsupported, UNDEFINED_ADDRESS } from './fileBytes.js';
import { isDefined, MSG, readObjectHeader, type Message, type Sizes } from './objectHeader.js';

/** How a dataset's element is stored: IEEE float or two's complement integer of 1..8 bytes. */
export interface ElementType {
  kind: 'float' | 'int';
  size: number;
  signed: boolean;
  littleEndian: boolean;
}

export interface Filter {
  id: number;
  /** The name the file gives the filter, if any. */
  name?: string;
  /** Optional filters may be skipped for a chunk (its filter mask says so). */
  clientData: number[];
}

export type Layout =
  | { kind: 'contiguous'; address: number; size: number }
  | { kind: 'compact'; data: Buffer }
  /** Chunk dims without the element-size dimension layout version 3 adds. */
  | { kind: 'chunked'; chunks: number[]; index: ChunkIndex; unfilteredEdges: boolean };

/** Where the chunk addresses are (layout v3: always a version 1 B-tree; v4 and v5: one of several). */
export type ChunkIndex =
  | { type: 'btree1'; address: number }
  | { type: 'single'; address: number; filteredSize?: number; filterMask?: number }
  | { type: 'implicit'; address: number }
  /** Layout version 5 keeps filtered chunk sizes differently: only its unfiltered arrays are read. */
  | { type: 'fixed'; address: number; layoutVersion: number };

export interface DatasetInfo {
  name: string;
  shape: number[];
  element: ElementType;
  layout: Layout;
  filters: Filter[];
  /** The fill value's bytes, when the dataset defines one. */
  fill?: Buffer;
}

/**
 * The parts of an HDF5 file (NetCDF-4) a chunk reader needs: the root group's links and, per
 * dataset, its shape, element type, layout, chunk index and filters. Read straight from the file's
 * metadata (superblock, object headers, symbol tables or link messages); whatever this does not
 * understand raises Hdf5Unsupported and the caller reads through the HDF5 library instead.
 */
export class Hdf5Structure {
  private links?: Map<string, number>;
  private constructor(
    readonly file: FileBytes,
    readonly sizes: Sizes,
    private readonly root: number,
    /** The file's size as its superblock states it (the end-of-file address). */
    readonly declaredSize: number,
    private readonly rootSymbolTable?: { btree: number; heap: number },
  ) {}

  static open(path: string): Hdf5Structure {
    const file = FileBytes.open(path);
    try {
      return Hdf5Structure.fromSuperblock(file);
    } catch (err) {
      file.close();
      throw err;
    }
  }

  private static fromSuperblock(file: FileBytes): Hdf5Structure {
    const buf = file.read(0, 512);
    // A user block shifts the superblock to 512, 1024, 2048 ...; NetCDF-4 files have none.
    if (buf.toString('latin1', 0, 8) !== '\x89HDF\r\n\x1a\n') throw new Hdf5Unsupported('no HDF5 superblock at offset 0');
    const version = buf[8]!;
    if (version === 0 || version === 1) {
      const offsetSize = buf[13]!;
      const lengthSize = buf[14]!;
      const c = new Cursor(buf, version === 0 ? 24 : 28, offsetSize, lengthSize);
      const base = c.offset();
      if (base !== 0) throw new Hdf5Unsupported('a base address other than 0');
      c.offset(); // free-space info
      const end = c.offset();
      c.offset(); // driver information
      // The root group's symbol table entry.
      c.offset(); // link name offset
      const header = c.offset();
      const cacheType = c.u32();
      c.u32();
      const scratch = cacheType === 1 ? { btree: c.offset(), heap: c.offset() } : undefined;
      return new Hdf5Structure(file, { offsetSize, lengthSize }, header, end, scratch);
    }
    if (version === 2 || version === 3) {
      const offsetSize = buf[9]!;
      const lengthSize = buf[10]!;
      const c = new Cursor(buf, 12, offsetSize, lengthSize);
      if (c.offset() !== 0) throw new Hdf5Unsupported('a base address other than 0');
      c.offset(); // superblock extension
      const end = c.offset();
      return new Hdf5Structure(file, { offsetSize, lengthSize }, c.offset(), end);
    }
    throw new Hdf5Unsupported(`superblock version ${version}`);
  }

  /** Names of the root group's members -> object header addresses. */
  rootMembers(): Map<string, number> {
    if (!this.links) this.links = this.groupMembers(this.root, this.rootSymbolTable);
    return this.links;
  }

  private groupMembers(header: number, cached?: { btree: number; heap: number }): Map<string, number> {
    const messages = cached ? [] : readObjectHeader(this.file, header, this.sizes);
    const table = cached ?? symbolTableOf(messages, this.sizes);
    if (table) return this.symbolTableMembers(table.btree, table.heap);
    const info = messages.find((m) => m.type === MSG.linkInfo);
    if (info) {
      const c = this.cursor(info.data);
      c.u8();
      const flags = c.u8();
      if (flags & 1) c.u64();
      if (isDefined(c.offset())) throw new Hdf5Unsupported('links in dense storage (a fractal heap)');
    }
    const out = new Map<string, number>();
    for (const m of messages.filter((x) => x.type === MSG.link)) {
      const link = parseLink(this.cursor(m.data));
      if (link) out.set(link.name, link.address);
    }
    return out;
  }

  /** An old-style group: a version 1 B-tree of symbol table nodes, names in a local heap. */
  private symbolTableMembers(btree: number, heap: number): Map<string, number> {
    const h = new Cursor(this.file.read(heap, 32 + 2 * this.sizes.lengthSize + this.sizes.offsetSize), 0, this.sizes.offsetSize, this.sizes.lengthSize);
    h.signature('HEAP');
    h.skip(4);
    const heapSize = h.length();
    h.length(); // free list
    const names = this.file.read(h.offset(), heapSize);
    const out = new Map<string, number>();
    const visit = (address: number) => {
      const node = this.cursor(this.file.read(address, 8 + 2 * this.sizes.offsetSize));
      node.signature('TREE');
      const type = node.u8();
      const level = node.u8();
      const entries = node.u16();
      if (type !== 0) throw new Hdf5Unsupported('a group B-tree node of another type');
      const keySize = this.sizes.lengthSize;
      const body = this.cursor(this.file.read(address + 8 + 2 * this.sizes.offsetSize, (entries + 1) * keySize + entries * this.sizes.offsetSize));
      for (let k = 0; k < entries; k++) {
        body.skip(keySize);
        const child = body.offset();
        if (level > 0) visit(child);
        else this.symbolNode(child, names, out);
      }
    };
    visit(btree);
    return out;
  }

  private symbolNode(address: number, names: Buffer, out: Map<string, number>) {
    const entrySize = 2 * this.sizes.offsetSize + 24;
    const head = this.cursor(this.file.read(address, 8));
    head.signature('SNOD');
    head.skip(2);
    const count = head.u16();
    const c = this.cursor(this.file.read(address + 8, count * entrySize));
    for (let k = 0; k < count; k++) {
      const start = c.pos;
      const nameOffset = c.offset();
      const header = c.offset();
      out.set(new Cursor(names).cstring(nameOffset), header);
      c.pos = start + entrySize;
    }
  }

  /** The dataset a root member names, or undefined for another kind of object. */
  dataset(name: string): DatasetInfo | undefined {
    const address = this.rootMembers().get(name);
    if (address === undefined) return undefined;
    const messages = readObjectHeader(this.file, address, this.sizes);
    const find = (type: number) => {
      const m = messages.find((x) => x.type === type);
      // Bit 1: the message lives elsewhere (a shared, committed datatype for instance).
      if (m && m.flags & 0x02) throw new Hdf5Unsupported(`shared message of type ${type} in ${name}`);
      return m;
    };
    const layoutMsg = find(MSG.layout);
    const typeMsg = find(MSG.datatype);
    const spaceMsg = find(MSG.dataspace);
    if (!layoutMsg || !typeMsg || !spaceMsg) return undefined;
    const shape = parseDataspace(this.cursor(spaceMsg.data));
    const element = parseDatatype(this.cursor(typeMsg.data));
    const layout = parseLayout(this.cursor(layoutMsg.data), shape.length);
    const filtersMsg = find(MSG.filters);
    const filters = filtersMsg ? parseFilters(this.cursor(filtersMsg.data)) : [];
    const fillMsg = messages.find((x) => x.type === MSG.fillValue && !(x.flags & 0x02));
    // The old fill value message (before HDF5 1.6): only the value's size and bytes.
    const oldFill = messages.find((x) => x.type === MSG.fillValueOld && !(x.flags & 0x02));
    const fill = fillMsg ? parseFill(this.cursor(fillMsg.data), element.size) : oldFill ? parseOldFill(this.cursor(oldFill.data), element.size) : undefined;
    return { name, shape, element, layout, filters, ...(fill ? { fill } : {}) };
  }

  close() {
    this.file.close();
  }

  private cursor(buf: Buffer) {
    return new Cursor(buf, 0, this.sizes.offsetSize, this.sizes.lengthSize);
  }
}

function symbolTableOf(messages: Message[], sizes: Sizes) {
  const m = messages.find((x) => x.type === MSG.symbolTable);
  if (!m) return undefined;
  const c = new Cursor(m.data, 0, sizes.offsetSize, sizes.lengthSize);
  return { btree: c.offset(), heap: c.offset() };
}

function parseLink(c: Cursor): { name: string; address: number } | undefined {
  if (c.u8() !== 1) throw new Hdf5Unsupported('link message version');
  const flags = c.u8();
  const type = flags & 0x08 ? c.u8() : 0;
  if (flags & 0x04) c.u64(); // creation order
  if (flags & 0x10) c.u8(); // name character set
  const nameLength = c.uint(1 << (flags & 0x03));
  const name = c.bytes(nameLength).toString('utf8');
  if (type !== 0) return undefined; // soft and external links: not datasets of this file
  return { name, address: c.offset() };
}

function parseDataspace(c: Cursor): number[] {
  const version = c.u8();
  const rank = c.u8();
  c.u8(); // flags
  if (version === 1) c.skip(5);
  else if (version === 2) c.u8(); // type: scalar, simple, null
  else throw new Hdf5Unsupported(`dataspace version ${version}`);
  return Array.from({ length: rank }, () => c.length());
}

function parseDatatype(c: Cursor): ElementType {
  const classAndVersion = c.u8();
  const bits0 = c.u8();
  c.u8();
  c.u8();
  const size = c.u32();
  const cls = classAndVersion & 0x0f;
  if (cls === 0) return { kind: 'int', size, signed: (bits0 & 0x08) !== 0, littleEndian: (bits0 & 0x01) === 0 };
  if (cls === 1 && (size === 4 || size === 8) && !(bits0 & 0x40)) return { kind: 'float', size, signed: true, littleEndian: (bits0 & 0x01) === 0 };
  throw new Hdf5Unsupported(`datatype class ${cls} of ${size} bytes`);
}

function parseLayout(c: Cursor, rank: number): Layout {
  const version = c.u8();
  if (version === 3) {
    const cls = c.u8();
    if (cls === 0) return { kind: 'compact', data: c.bytes(c.u16()) };
    if (cls === 1) return { kind: 'contiguous', address: c.offset(), size: c.length() };
    if (cls === 2) {
      const dims = c.u8();
      const address = c.offset();
      const chunks = Array.from({ length: dims }, () => c.u32()).slice(0, rank);
      return { kind: 'chunked', chunks, index: { type: 'btree1', address }, unfilteredEdges: false };
    }
  } else if (version === 4 || version === 5) {
    // Version 5 (HDF5 2.0) is version 4 but for how filtered chunk sizes are kept in the index.
    const cls = c.u8();
    if (cls === 0) return { kind: 'compact', data: c.bytes(c.u16()) };
    if (cls === 1) return { kind: 'contiguous', address: c.offset(), size: c.length() };
    if (cls === 2) {
      const flags = c.u8();
      const dims = c.u8();
      const width = c.u8();
      const chunks = Array.from({ length: dims }, () => c.uint(width)).slice(0, rank);
      // Bit 0: chunks that stick out of the dataset's edge are stored unfiltered.
      const unfilteredEdges = (flags & 0x01) !== 0;
      const indexType = c.u8();
      if (indexType === 1) {
        const filtered = (flags & 0x02) !== 0;
        if (filtered && version === 5) throw new Hdf5Unsupported('a filtered single chunk of layout version 5');
        const filteredSize = filtered ? c.length() : undefined;
        const filterMask = filtered ? c.u32() : undefined;
        return { kind: 'chunked', chunks, unfilteredEdges, index: { type: 'single', address: c.offset(), ...(filtered ? { filteredSize, filterMask } : {}) } };
      }
      if (indexType === 2) return { kind: 'chunked', chunks, unfilteredEdges, index: { type: 'implicit', address: c.offset() } };
      if (indexType === 3) {
        c.u8(); // log2 of the entries in a page of the data block: the array's header says it again
        return { kind: 'chunked', chunks, unfilteredEdges, index: { type: 'fixed', address: c.offset(), layoutVersion: version } };
      }
      const kinds: Record<number, string> = { 3: 'a fixed array', 4: 'an extensible array', 5: 'a version 2 B-tree' };
      throw new Hdf5Unsupported(`chunks indexed by ${kinds[indexType] ?? `an index of type ${indexType}`}`);
    }
  }
  throw new Hdf5Unsupported(`data layout message version ${version}`);
}

function parseFilters(c: Cursor): Filter[] {
  const version = c.u8();
  const count = c.u8();
  if (version === 1) c.skip(6);
  else if (version !== 2) throw new Hdf5Unsupported(`filter pipeline version ${version}`);
  const out: Filter[] = [];
  for (let k = 0; k < count; k++) {
    const id = c.u16();
    const nameLength = version === 1 || id >= 256 ? c.u16() : 0;
    c.u16(); // flags
    const values = c.u16();
    const name = c.buf.toString('latin1', c.pos, c.pos + nameLength).replace(/\0.*$/s, '');
    if (nameLength > 0) c.skip(version === 1 ? Math.ceil(nameLength / 8) * 8 : nameLength);
    const clientData = Array.from({ length: values }, () => c.u32());
    if (version === 1 && values % 2 === 1) c.skip(4);
    out.push({ id, clientData, ...(name ? { name } : {}) });
  }
  return out;
}

function parseOldFill(c: Cursor, size: number): Buffer | undefined {
  const n = c.u32();
  return n === size ? Buffer.from(c.bytes(n)) : undefined;
}

function parseFill(c: Cursor, size: number): Buffer | undefined {
  const version = c.u8();
  if (version === 1 || version === 2) {
    c.u8(); // allocation time
    c.u8(); // write time
    const defined = c.u8();
    if (version === 2 && !defined) return undefined;
    const n = c.u32();
    return n === size ? Buffer.from(c.bytes(n)) : undefined;
  }
  if (version === 3) {
    const flags = c.u8();
    if (!(flags & 0x20)) return undefined;
    const n = c.u32();
    return n === size ? Buffer.from(c.bytes(n)) : undefined;
  }
  return undefined;
}

export { UNDEFINED_ADDRESS };
