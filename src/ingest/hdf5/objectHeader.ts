import { Cursor, Hdf5Unsupported, UNDEFINED_ADDRESS, type FileBytes } from './fileBytes.js';

/** Object header message types this reader uses (HDF5 file format specification, IV.A.2). */
export const MSG = {
  dataspace: 0x0001,
  linkInfo: 0x0002,
  datatype: 0x0003,
  fillValueOld: 0x0004,
  fillValue: 0x0005,
  link: 0x0006,
  layout: 0x0008,
  filters: 0x000b,
  continuation: 0x0010,
  symbolTable: 0x0011,
} as const;

export interface Message {
  type: number;
  flags: number;
  data: Buffer;
}

export interface Sizes {
  offsetSize: number;
  lengthSize: number;
}

/** Object headers are small; one read usually holds the whole first block. */
const FIRST_READ = 4096;

/**
 * The messages of the object header at `address`, following continuation blocks. Version 1
 * headers (superblocks 0 and 1) and version 2 ("OHDR", superblocks 2 and 3); checksums are not
 * verified (inflate verifies the data itself).
 */
export function readObjectHeader(file: FileBytes, address: number, sizes: Sizes): Message[] {
  const head = file.read(address, FIRST_READ);
  const out: Message[] = [];
  const blocks: [number, number][] = [];
  let version: 1 | 2;
  let creationOrder = false;
  if (head.toString('latin1', 0, 4) === 'OHDR') {
    version = 2;
    const c = new Cursor(head, 4, sizes.offsetSize, sizes.lengthSize);
    if (c.u8() !== 2) throw new Hdf5Unsupported('object header version other than 2 after OHDR');
    const flags = c.u8();
    if (flags & 0x20) c.skip(16); // access, modification, change and birth times
    if (flags & 0x10) c.skip(4); // attribute storage phase change values
    const chunk0 = c.uint(1 << (flags & 0x03));
    creationOrder = (flags & 0x04) !== 0;
    // The first block's messages, then its 4-byte checksum.
    parseV2(blockBytes(file, head, address + c.pos, chunk0, address), creationOrder, out, blocks, sizes);
  } else {
    version = 1;
    const c = new Cursor(head, 0, sizes.offsetSize, sizes.lengthSize);
    if (c.u8() !== 1) throw new Hdf5Unsupported(`object header at ${address} has an unknown version`);
    c.skip(1);
    c.u16(); // message count (continuation blocks included)
    c.u32(); // reference count
    const size = c.u32();
    parseV1(blockBytes(file, head, address + 16, size, address), out, blocks, sizes);
  }
  // Continuation blocks may hold further continuations.
  for (let k = 0; k < blocks.length; k++) {
    const [at, length] = blocks[k]!;
    const buf = file.read(at, length);
    if (version === 2) {
      if (buf.toString('latin1', 0, 4) !== 'OCHK') throw new Hdf5Unsupported(`object header continuation at ${at} lacks OCHK`);
      parseV2(buf.subarray(4, buf.length - 4), creationOrder, out, blocks, sizes);
    } else {
      parseV1(buf, out, blocks, sizes);
    }
  }
  return out;
}

/** `length` bytes at `at`, from the first read when they lie in it. */
function blockBytes(file: FileBytes, head: Buffer, at: number, length: number, headAt: number): Buffer {
  const from = at - headAt;
  if (from + length <= head.length) return head.subarray(from, from + length);
  return file.read(at, length);
}

function addMessage(type: number, flags: number, data: Buffer, out: Message[], blocks: [number, number][], sizes: Sizes) {
  if (type === MSG.continuation) {
    const c = new Cursor(data, 0, sizes.offsetSize, sizes.lengthSize);
    blocks.push([c.offset(), c.length()]);
  } else if (type !== 0) {
    out.push({ type, flags, data });
  }
}

function parseV1(buf: Buffer, out: Message[], blocks: [number, number][], sizes: Sizes) {
  let pos = 0;
  while (pos + 8 <= buf.length) {
    const type = buf.readUInt16LE(pos);
    const size = buf.readUInt16LE(pos + 2);
    const flags = buf.readUInt8(pos + 4);
    addMessage(type, flags, buf.subarray(pos + 8, pos + 8 + size), out, blocks, sizes);
    pos += 8 + size;
  }
}

function parseV2(buf: Buffer, creationOrder: boolean, out: Message[], blocks: [number, number][], sizes: Sizes) {
  const header = creationOrder ? 6 : 4;
  let pos = 0;
  // A gap shorter than a message header may follow the last message.
  while (pos + header <= buf.length) {
    const type = buf.readUInt8(pos);
    const size = buf.readUInt16LE(pos + 1);
    const flags = buf.readUInt8(pos + 3);
    addMessage(type, flags, buf.subarray(pos + header, pos + header + size), out, blocks, sizes);
    pos += header + size;
  }
}

export const isDefined = (address: number) => address !== UNDEFINED_ADDRESS;
