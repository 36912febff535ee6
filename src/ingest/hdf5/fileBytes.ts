import fs from 'node:fs';

/** A file read by byte ranges (pread), never whole. */
export class FileBytes {
  readonly size: number;
  private constructor(
    readonly path: string,
    private readonly fd: number,
  ) {
    this.size = fs.fstatSync(fd).size;
  }

  static open(path: string): FileBytes {
    return new FileBytes(path, fs.openSync(path, 'r'));
  }

  /** `length` bytes from `offset`; fewer only past the end of the file. */
  read(offset: number, length: number, into?: Buffer): Buffer {
    const buf = into && into.length >= length ? into.subarray(0, length) : Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = fs.readSync(this.fd, buf, done, length - done, offset + done);
      if (n === 0) break;
      done += n;
    }
    return done === length ? buf : buf.subarray(0, done);
  }

  close() {
    fs.closeSync(this.fd);
  }
}

/** The "undefined address" of HDF5: every byte 0xff. */
export const UNDEFINED_ADDRESS = -1;

/**
 * Little-endian fields of HDF5 metadata. Offsets and lengths are as wide as the superblock says
 * (8 bytes in every file netCDF or h5py write); they are returned as numbers, exact below 2^53.
 */
export class Cursor {
  constructor(
    readonly buf: Buffer,
    public pos = 0,
    readonly offsetSize = 8,
    readonly lengthSize = 8,
  ) {}

  get remaining() {
    return this.buf.length - this.pos;
  }
  u8() {
    return this.buf.readUInt8(this.pos++);
  }
  u16() {
    const v = this.buf.readUInt16LE(this.pos);
    this.pos += 2;
    return v;
  }
  u32() {
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  u64() {
    const lo = this.buf.readUInt32LE(this.pos);
    const hi = this.buf.readUInt32LE(this.pos + 4);
    this.pos += 8;
    return hi * 2 ** 32 + lo;
  }
  /** An unsigned integer of 1..8 bytes. */
  uint(size: number) {
    let v = 0;
    for (let k = size - 1; k >= 0; k--) v = v * 256 + this.buf[this.pos + k]!;
    this.pos += size;
    return v;
  }
  /** A file address, or UNDEFINED_ADDRESS. */
  offset() {
    const undefinedAddress = this.buf.subarray(this.pos, this.pos + this.offsetSize).every((b) => b === 0xff);
    const v = this.uint(this.offsetSize);
    return undefinedAddress ? UNDEFINED_ADDRESS : v;
  }
  length() {
    return this.uint(this.lengthSize);
  }
  bytes(n: number) {
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
  skip(n: number) {
    this.pos += n;
  }
  /** A NUL-terminated string. */
  cstring(from = this.pos) {
    const end = this.buf.indexOf(0, from);
    return this.buf.toString('latin1', from, end < 0 ? this.buf.length : end);
  }
  signature(expected: string) {
    const got = this.buf.toString('latin1', this.pos, this.pos + expected.length);
    if (got !== expected) throw new Hdf5Unsupported(`expected the signature ${expected}, found ${JSON.stringify(got)}`);
    this.pos += expected.length;
  }
}

/**
 * A structure this reader does not handle (shared messages, dense link storage, old layouts ...):
 * the caller then reads through the HDF5 library (h5wasm) instead.
 */
export class Hdf5Unsupported extends Error {}

/** Damage this reader found (values past the end of the file, too few compact bytes): no other reader would do better. */
export class Hdf5Damaged extends Error {}
