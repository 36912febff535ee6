import os from 'node:os';

/**
 * A GeoTIFF of float32 bands on a regular lon/lat grid (EPSG:4326), written here: a classic
 * little-endian TIFF, uncompressed, one strip per band (PlanarConfiguration 2), with the GeoTIFF
 * tags GDAL and QGIS read (ModelPixelScale, ModelTiepoint, GeoKeyDirectory: geographic WGS 84,
 * pixels as areas), GDAL_NODATA and the bands' names in GDAL_METADATA. Small enough to own: the
 * npm writers either lack float bands or bring a canvas stack.
 */
export interface GeoRaster {
  width: number;
  height: number;
  /** Longitude of the raster's west edge and latitude of its north edge, degrees. */
  west: number;
  north: number;
  /** Pixel size in degrees (square pixels). */
  size: number;
  /** Per band, width x height values, row by row from the north-west; NaN is nodata. */
  bands: Float32Array[];
  names: string[];
}

const SHORT = 3;
const LONG = 4;
const ASCII = 2;
const DOUBLE = 12;
const TYPE_BYTES: Record<number, number> = { [SHORT]: 2, [LONG]: 4, [ASCII]: 1, [DOUBLE]: 8 };

interface Entry {
  tag: number;
  type: number;
  values: number[] | string;
}

const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function geoTiff(r: GeoRaster): Uint8Array {
  const n = r.bands.length;
  const bandBytes = r.width * r.height * 4;
  const metadata = `<GDALMetadata>${r.names.map((name, i) => `<Item name="DESCRIPTION" sample="${i}" role="description">${xmlText(name)}</Item>`).join('')}</GDALMetadata>`;
  // Strip offsets are known once the IFD and its out-of-line values are laid out: filled in below.
  const stripOffsets: number[] = new Array<number>(n).fill(0);
  const entries: Entry[] = [
    { tag: 256, type: LONG, values: [r.width] },
    { tag: 257, type: LONG, values: [r.height] },
    { tag: 258, type: SHORT, values: new Array<number>(n).fill(32) },
    { tag: 259, type: SHORT, values: [1] },
    { tag: 262, type: SHORT, values: [1] },
    { tag: 273, type: LONG, values: stripOffsets },
    { tag: 277, type: SHORT, values: [n] },
    { tag: 278, type: LONG, values: [r.height] },
    { tag: 279, type: LONG, values: new Array<number>(n).fill(bandBytes) },
    { tag: 284, type: SHORT, values: [2] },
    // Bands past the first are "unspecified" extra samples, so readers do not take them for an alpha.
    ...(n > 1 ? [{ tag: 338, type: SHORT, values: new Array<number>(n - 1).fill(0) }] : []),
    { tag: 339, type: SHORT, values: new Array<number>(n).fill(3) },
    { tag: 33550, type: DOUBLE, values: [r.size, r.size, 0] },
    { tag: 33922, type: DOUBLE, values: [0, 0, 0, r.west, r.north, 0] },
    // Version 1.1.0, 4 keys: GTModelType geographic, GTRasterType PixelIsArea, GeographicType 4326, GeogAngularUnits degree.
    { tag: 34735, type: SHORT, values: [1, 1, 0, 4, 1024, 0, 1, 2, 1025, 0, 1, 1, 2048, 0, 1, 4326, 2054, 0, 1, 9102] },
    { tag: 42112, type: ASCII, values: metadata },
    { tag: 42113, type: ASCII, values: 'nan' },
  ];
  const ifdBytes = 2 + entries.length * 12 + 4;
  const count = (e: Entry) => (typeof e.values === 'string' ? Buffer.byteLength(e.values) + 1 : e.values.length);
  const size = (e: Entry) => count(e) * TYPE_BYTES[e.type]!;
  // Out-of-line values after the IFD, each at an even offset as TIFF 6.0 asks.
  let at = 8 + ifdBytes;
  const offsets = entries.map((e) => {
    if (size(e) <= 4) return 0;
    const offset = at;
    at += size(e) + (size(e) % 2);
    return offset;
  });
  // float32 samples aligned to 4 bytes.
  at += (4 - (at % 4)) % 4;
  for (let b = 0; b < n; b++) stripOffsets[b] = at + b * bandBytes;
  const out = Buffer.alloc(at + n * bandBytes);
  out.write('II', 0, 'latin1');
  out.writeUInt16LE(42, 2);
  out.writeUInt32LE(8, 4);
  let p = 8;
  out.writeUInt16LE(entries.length, p);
  p += 2;
  const writeValues = (e: Entry, where: number) => {
    if (typeof e.values === 'string') {
      out.write(e.values, where, 'latin1');
      out.writeUInt8(0, where + Buffer.byteLength(e.values));
      return;
    }
    const bytes = TYPE_BYTES[e.type]!;
    e.values.forEach((v, i) => {
      const q = where + i * bytes;
      if (e.type === SHORT) out.writeUInt16LE(v, q);
      else if (e.type === LONG) out.writeUInt32LE(v, q);
      else out.writeDoubleLE(v, q);
    });
  };
  entries.forEach((e, i) => {
    out.writeUInt16LE(e.tag, p);
    out.writeUInt16LE(e.type, p + 2);
    out.writeUInt32LE(count(e), p + 4);
    if (size(e) <= 4) writeValues(e, p + 8);
    else {
      out.writeUInt32LE(offsets[i]!, p + 8);
      writeValues(e, offsets[i]!);
    }
    p += 12;
  });
  out.writeUInt32LE(0, p);
  r.bands.forEach((band, b) => {
    // The file says little-endian ('II'): the samples' bytes are copied as they are on such a host.
    if (os.endianness() === 'LE') Buffer.from(band.buffer, band.byteOffset, band.byteLength).copy(out, stripOffsets[b]!);
    else band.forEach((v, i) => out.writeFloatLE(v, stripOffsets[b]! + 4 * i));
  });
  return out;
}
