import fs from 'node:fs';
import type { AttrValue } from './cfValues.js';

/** What the ingest needs of a NetCDF file, whichever format holds it. */
export interface GridVariable {
  name: string;
  /** Dimension names, outermost first; empty strings where a file does not name them. */
  dims: string[];
  shape: number[];
  /** Chunk shape when the variable is stored in chunks (NetCDF-4), else null. */
  chunks: number[] | null;
  attrs: Record<string, AttrValue>;
}

export interface GridFile {
  format: string;
  globalAttrs: Record<string, AttrValue>;
  variableNames(): string[];
  variable(name: string): GridVariable | undefined;
  /** All values of a (small, 1-D) variable. */
  readAll(name: string): Float64Array;
  /** Values of a 3-D variable over half-open index ranges, C order (time, then row, then column). */
  readBlock(name: string, t: [number, number], i: [number, number], j: [number, number]): ArrayLike<number>;
  close(): void;
}

export type FileKind = 'hdf5' | 'netcdf3';

/** Chooses the reader by the file's first bytes: \x89HDF (NetCDF-4) or CDF\x01 / CDF\x02 (NetCDF-3). */
export function sniff(file: string): FileKind {
  const fd = fs.openSync(file, 'r');
  const head = Buffer.alloc(512);
  let n: number;
  try {
    n = fs.readSync(fd, head, 0, head.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (n >= 4 && head[0] === 0x89 && head.toString('latin1', 1, 4) === 'HDF') return 'hdf5';
  if (n >= 4 && head.toString('latin1', 0, 3) === 'CDF') {
    if (head[3] === 1 || head[3] === 2) return 'netcdf3';
    throw new Error(`is a NetCDF-3 file of version ${head[3]} (CDF-5 / 64-bit data), which is not supported; convert it with nccopy -k nc4`);
  }
  if (n === 0) throw new Error('is empty (0 bytes): a download that never got its data; download it again');
  const page = markupKind(head.subarray(0, n).toString('latin1'));
  if (page) throw new Error(`is ${page}, not a NetCDF file: a server's error or login page saved under the file's name; download it again`);
  throw new Error(`is not a NetCDF file: its first bytes are ${JSON.stringify(head.subarray(0, Math.min(n, 4)).toString('latin1'))}, expected \\x89HDF (NetCDF-4) or CDF\\x01/CDF\\x02 (NetCDF-3)`);
}

/** 'an HTML page' or 'an XML document' (what servers answer with instead of a file), else undefined. */
function markupKind(text: string): string | undefined {
  const start = text.replace(/^\uFEFF?\s*/, '').toLowerCase();
  if (/^<(!doctype html|html|head|body)\b/.test(start) || (start.startsWith('<') && /<html\b/.test(start))) return 'an HTML page';
  if (start.startsWith('<?xml') || /^<[a-z!]/.test(start)) return 'an XML document';
  return undefined;
}
