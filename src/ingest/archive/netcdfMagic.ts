import fs from 'node:fs';

/**
 * Whether a file starts as a NetCDF file does: `CDF\x01` (classic), `CDF\x02` (64-bit offset) or
 * the HDF5 signature of NetCDF-4. Servers answer errors with 200 and an HTML page often enough that
 * a status is no proof of data. Returns undefined when it does, else what it looks like.
 */
export function notNetcdf(file: string): string | undefined {
  const head = Buffer.alloc(512);
  if (!fs.existsSync(file)) return 'an empty body';
  const fd = fs.openSync(file, 'r');
  let n: number;
  try {
    n = fs.readSync(fd, head, 0, head.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  const bytes = head.subarray(0, n);
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]))) return undefined;
  if (bytes.subarray(0, 3).toString('latin1') === 'CDF' && (bytes[3] === 1 || bytes[3] === 2)) return undefined;
  const text = bytes.toString('utf8').trimStart().toLowerCase();
  if (text.startsWith('<!doctype html') || text.startsWith('<html') || text.includes('<body')) return 'an HTML page';
  if (text.startsWith('<?xml') || text.startsWith('<error')) return 'an XML document';
  if (n === 0) return 'empty';
  return `bytes that are not NetCDF (it starts ${JSON.stringify(bytes.subarray(0, 16).toString('latin1'))})`;
}
