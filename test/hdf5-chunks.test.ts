import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import h5wasm from 'h5wasm/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureFileName, writeFixture, type FixtureSpec } from '../scripts/archiveModel/fixtureFiles.js';
import { TEST_FILTER_ID } from '../scripts/archiveModel/netcdf4Writer.js';
import { readChunkIndex } from '../src/ingest/hdf5/chunkIndex.js';
import { openDataset } from '../src/ingest/hdf5/dataset.js';
import { Hdf5Unsupported, UNDEFINED_ADDRESS } from '../src/ingest/hdf5/fileBytes.js';
import { Hdf5Structure } from '../src/ingest/hdf5/hdf5Structure.js';
import { Hdf5File } from '../src/ingest/netcdf/hdf5File.js';

/**
 * The chunk reader (src/ingest/hdf5/) against the HDF5 library (h5wasm), both ways: files the
 * library writes are read by ChunkedDataset exactly as the library reads them, and the files the
 * scale model's writer streams (shuffle + deflate) are read by the library as written.
 */
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-hdf5-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

type H5Dataset = { slice(r: [number, number][]): ArrayLike<number>; value: ArrayLike<number>; filters: { id: number }[]; metadata: { chunks: number[] | null }; get_attached_scales(k: number): string[]; shape: number[] };
const libraryFile = (file: string) => new h5wasm.File(file, 'r');
const dataset = (f: InstanceType<typeof h5wasm.File>, name: string) => f.get(name) as unknown as H5Dataset;

const base: FixtureSpec = { layout: 'NEX-GDDP-CMIP6', variable: 'tasmax', model: 'ACCESS-CM2', scenario: 'ssp245', year: 2052, lat: [40.125, 41.875], lon: [-74.875, -72.625], lon360: true };

/** Blocks of every kind: whole, one value, across chunk edges, to the dataset's edge. */
function blocks(shape: number[]): [number, number][][] {
  if (shape.length === 1) return [[[0, shape[0]!]], [[3, shape[0]! - 2]]];
  const [nt, ni, nj] = shape as [number, number, number];
  return [
    [[0, nt], [0, ni], [0, nj]],
    [[nt - 1, nt], [ni - 1, ni], [nj - 1, nj]],
    [[3, Math.min(nt, 80)], [1, ni], [2, Math.min(nj, 7)]],
    [[nt - 10, nt], [0, 1], [0, nj]],
  ];
}

function expectSameBlocks(file: string, name: string) {
  const f = libraryFile(file);
  const h = Hdf5Structure.open(file);
  try {
    const lib = dataset(f, name);
    const mine = openDataset(h, name)!;
    expect(mine.shape).toEqual(lib.shape);
    for (const b of blocks(lib.shape)) expect(Array.from(mine.readBlock(b))).toEqual(Array.from(lib.slice(b)));
  } finally {
    h.close();
    f.close();
  }
}

describe('reading NetCDF-4 chunks without the HDF5 library', () => {
  beforeAll(async () => {
    await h5wasm.ready;
  });

  it('reads files the HDF5 library wrote (deflate, chunks with edges, packed int16) as the library does', async () => {
    for (const [name, spec] of Object.entries({
      tiles: { ...base },
      days: { ...base, chunks: [1, 8, 10] as [number, number, number] },
      edges: { ...base, chunks: [100, 3, 4] as [number, number, number] },
      packed: { ...base, packed: true, chunks: [7, 5, 5] as [number, number, number] },
    })) {
      const file = await writeFixture(path.join(tmp, 'library', name), spec);
      expectSameBlocks(file, 'tasmax');
      expectSameBlocks(file, 'time');
    }
  });

  it('writes shuffled and deflated chunks that the HDF5 library reads as the same values, with named dimensions', async () => {
    for (const [name, extra] of Object.entries({
      days: {},
      edges: { chunks: [7, 3, 5] as [number, number, number] },
      packed: { packed: true, chunks: [30, 8, 10] as [number, number, number] },
    })) {
      const plain = await writeFixture(path.join(tmp, 'plain', name), { ...base, ...extra });
      const shuffled = await writeFixture(path.join(tmp, 'shuffled', name), { ...base, ...extra, shuffle: true });
      const a = libraryFile(plain);
      const b = libraryFile(shuffled);
      try {
        const v = dataset(b, 'tasmax');
        // Shuffle (2) then deflate (1), as the publishers store them.
        expect(v.filters.map((x) => x.id)).toEqual([2, 1]);
        expect(v.metadata.chunks).toEqual(extra.chunks ?? [366, 8, 10].map((n, k) => (k === 0 ? 1 : n)));
        expect([0, 1, 2].map((k) => v.get_attached_scales(k))).toEqual([['/time'], ['/lat'], ['/lon']]);
        expect(Array.from(v.value)).toEqual(Array.from(dataset(a, 'tasmax').value));
        for (const c of ['time', 'lat', 'lon']) expect(Array.from(dataset(b, c).value)).toEqual(Array.from(dataset(a, c).value));
        expect(b.attrs.cmip6_source_id?.value).toBe('ACCESS-CM2');
        expect(Number((v as unknown as { attrs: Record<string, { value: unknown }> }).attrs._FillValue!.value)).toBe(extra.packed ? -32767 : Math.fround(1e20));
      } finally {
        a.close();
        b.close();
      }
      expectSameBlocks(shuffled, 'tasmax');
    }
  });

  it('indexes 10,958 one-day chunks (a LOCA2 30-year file) in a B-tree of three levels', async () => {
    const spec: FixtureSpec = { layout: 'LOCA2', variable: 'tasmax', model: 'ACCESS-CM2', scenario: 'ssp245', year: 2015, endYear: 2044, lat: [40.71875, 40.78125], lon: [-74.03125, -73.96875], lon360: true, shuffle: true };
    const file = await writeFixture(path.join(tmp, 'loca2'), spec);
    expect(path.basename(file)).toBe(fixtureFileName(spec));
    const f = libraryFile(file);
    try {
      expect(dataset(f, 'tasmax').shape).toEqual([10958, 2, 2]);
    } finally {
      f.close();
    }
    expectSameBlocks(file, 'tasmax');
  });

  it('reads deflated chunks in a fixed array itself in layout version 4, through the HDF5 library in version 5', async () => {
    const spec = { ...base, chunks: [1, 8, 10] as [number, number, number] };
    const reference = await writeFixture(path.join(tmp, 'reference'), spec);
    for (const [libver, reader] of [['v110', 'native'], ['latest', 'h5wasm']] as const) {
      const file = path.join(tmp, `libver-${libver}.nc`);
      const src = libraryFile(reference);
      const out = new h5wasm.File(file, 'w', { libver });
      try {
        const values = dataset(src, 'tasmax').value as Float32Array;
        out.create_dataset({ name: 'tasmax', data: values, shape: [366, 8, 10], chunks: [1, 8, 10], compression: 'gzip' });
      } finally {
        out.close();
        src.close();
      }
      const h = await Hdf5File.open(file);
      try {
        const block = h.readBlock('tasmax', [5, 9], [1, 4], [2, 6]);
        expect(h.valueReader, libver).toBe(reader);
        const lib = libraryFile(reference);
        expect(Array.from(block)).toEqual(Array.from(dataset(lib, 'tasmax').slice([[5, 9], [1, 4], [2, 6]])));
        lib.close();
      } finally {
        h.close();
      }
    }
    const h = await Hdf5File.open(reference);
    h.readBlock('tasmax', [0, 2], [0, 8], [0, 10]);
    expect(h.valueReader).toBe('native');
    h.close();
  });

  it('stops at a damaged chunk with zlib\'s reason', async () => {
    const file = await writeFixture(path.join(tmp, 'damaged'), { ...base, shuffle: true });
    const s = Hdf5Structure.open(file);
    const info = s.dataset('tasmax')!;
    if (info.layout.kind !== 'chunked') throw new Error('expected chunks');
    const first = readChunkIndex(s.file, s.sizes, info.layout.index, info.shape, info.layout.chunks, 4)[0]!;
    s.close();
    expect(first.start).toEqual([0, 0, 0]);
    const bytes = fs.readFileSync(file);
    bytes.fill(0x55, first.address, first.address + 64);
    fs.writeFileSync(file, bytes);
    const h = await Hdf5File.open(file);
    try {
      expect(() => h.readBlock('tasmax', [0, 2], [0, 8], [0, 10])).toThrow(/incorrect header check|invalid/);
      expect(Array.from(h.readBlock('tasmax', [1, 2], [0, 1], [0, 1]))).toHaveLength(1);
    } finally {
      h.close();
    }
  });

  describe('every storage layout of a data variable', () => {
    /** 366 x 3 x 3 float32 (13 KB): small enough for compact storage. */
    const small: FixtureSpec = { ...base, lat: [40.125, 40.625], lon: [-74.875, -74.375] };
    const layoutOf = (file: string) => {
      const s = Hdf5Structure.open(file);
      try {
        return s.dataset('tasmax')!;
      } finally {
        s.close();
      }
    };
    /** The chunk index of the file's tasmax, read. */
    const readChunkIndexOf = (file: string) => {
      const s = Hdf5Structure.open(file);
      try {
        const info = s.dataset('tasmax')!;
        if (info.layout.kind !== 'chunked') throw new Error('expected chunks');
        return readChunkIndex(s.file, s.sizes, info.layout.index, info.shape, info.layout.chunks, 4);
      } finally {
        s.close();
      }
    };
    /** Hdf5File's blocks (native or through the library) against the library's own, and which reader read them. */
    async function readerOf(file: string): Promise<string> {
      const h = await Hdf5File.open(file);
      const lib = libraryFile(file);
      try {
        const readers = new Set<string>();
        for (const b of blocks(dataset(lib, 'tasmax').shape)) {
          expect(Array.from(h.readBlock('tasmax', b[0]!, b[1]!, b[2]!))).toEqual(Array.from(dataset(lib, 'tasmax').slice(b)));
          readers.add(h.valueReader);
        }
        return [...readers].join();
      } finally {
        lib.close();
        h.close();
      }
    }

    it('reads contiguous, compact, unfiltered and checksummed chunks itself, as the library reads them', async () => {
      const cases: [string, Partial<FixtureSpec>, string, number[]][] = [
        // The HDF5 library's own contiguous layout (no chunks, no filters given).
        ['contiguous', { storage: 'contiguous' }, 'contiguous', []],
        ['compact', { storage: 'compact' }, 'compact', []],
        ['unfiltered', { deflateLevel: 0, chunks: [50, 2, 2] }, 'chunked', []],
        ['fletcher32', { shuffle: true, fletcher32: true, chunks: [50, 2, 2] }, 'chunked', [2, 1, 3]],
        ['fletcher32-raw', { fletcher32: true, deflateLevel: 0, chunks: [50, 2, 2] }, 'chunked', [3]],
      ];
      for (const [name, extra, kind, filters] of cases) {
        const file = await writeFixture(path.join(tmp, 'layouts', name), { ...small, ...extra });
        const info = layoutOf(file);
        expect(info.layout.kind, name).toBe(kind);
        expect(info.filters.map((f) => f.id), name).toEqual(filters);
        expectSameBlocks(file, 'tasmax');
        expect(await readerOf(file), name).toBe('native');
      }
    });

    it("checks chunks against the HDF5 library's Fletcher-32 checksums, and stops at one that does not match", async () => {
      const plain = await writeFixture(path.join(tmp, 'fletcher-library', 'plain'), small);
      const file = path.join(tmp, 'fletcher-library', 'library.nc');
      const src = libraryFile(plain);
      const out = new h5wasm.File(file, 'w');
      try {
        // Filter 3 alone: the library appends its checksum to each chunk.
        out.create_dataset({ name: 'tasmax', data: dataset(src, 'tasmax').value as Float32Array, shape: [366, 3, 3], chunks: [40, 3, 2], compression: 3, compression_opts: [] });
      } finally {
        out.close();
        src.close();
      }
      expect(layoutOf(file).filters.map((f) => f.id)).toEqual([3]);
      expectSameBlocks(file, 'tasmax');

      const s = Hdf5Structure.open(file);
      const info = s.dataset('tasmax')!;
      if (info.layout.kind !== 'chunked') throw new Error('expected chunks');
      const first = readChunkIndex(s.file, s.sizes, info.layout.index, info.shape, info.layout.chunks, 4).find((e) => e.start.every((x) => x === 0))!;
      s.close();
      const bytes = fs.readFileSync(file);
      bytes[first.address + 5]! ^= 0x01;
      fs.writeFileSync(file, bytes);
      const h = await Hdf5File.open(file);
      try {
        expect(() => h.readBlock('tasmax', [0, 1], [0, 1], [0, 1])).toThrow(`variable tasmax's chunk at byte ${first.address} fails its Fletcher-32 checksum: the file is damaged; download it again`);
        // Other chunks still read.
        expect(Array.from(h.readBlock('tasmax', [100, 101], [0, 1], [0, 1]))).toHaveLength(1);
      } finally {
        h.close();
      }
    });

    it('reads a contiguous variable that was never written (no address) as its fill value', async () => {
      const file = await writeFixture(path.join(tmp, 'layouts', 'unwritten'), { ...small, storage: 'contiguous', unwritten: true });
      const info = layoutOf(file);
      expect(info.layout).toMatchObject({ kind: 'contiguous', address: UNDEFINED_ADDRESS });
      expectSameBlocks(file, 'tasmax');
      const h = await Hdf5File.open(file);
      try {
        const values = Array.from(h.readBlock('tasmax', [0, 366], [0, 3], [0, 3]));
        expect(values).toHaveLength(366 * 9);
        expect(new Set(values)).toEqual(new Set([Math.fround(1e20)]));
      } finally {
        h.close();
      }
    });

    it('reads the newer chunk indexes: single chunk and fixed array itself, extensible array and version 2 B-tree through the library', async () => {
      const cases: [string, Partial<FixtureSpec>, string, string][] = [
        ['single', { libver: 'latest', deflateLevel: 0, chunks: [366, 3, 3] }, 'single', 'native'],
        ['single-deflated', { libver: 'latest', chunks: [366, 3, 3] }, 'single', 'h5wasm'],
        ['fixed-array', { libver: 'v110', chunks: [50, 2, 2] }, 'fixed', 'native'],
        ['fixed-array-unfiltered', { libver: 'v110', deflateLevel: 0, chunks: [50, 2, 2] }, 'fixed', 'native'],
        // 1,464 chunks: more than a page of 1,024 entries.
        ['fixed-array-paged', { libver: 'v110', chunks: [1, 2, 2] }, 'fixed', 'native'],
        ['fixed-array-paged-v5', { libver: 'latest', deflateLevel: 0, chunks: [1, 2, 2] }, 'fixed', 'native'],
        ['fixed-array-deflated-v5', { libver: 'latest', chunks: [50, 2, 2] }, 'fixed', 'h5wasm'],
        ['extensible-array', { libver: 'latest', unlimitedTime: true, chunks: [50, 2, 2] }, '', 'h5wasm'],
      ];
      for (const [name, extra, index, reader] of cases) {
        const file = await writeFixture(path.join(tmp, 'indexes', name), { ...small, ...extra });
        if (index && reader === 'native') expect(layoutOf(file).layout, name).toMatchObject({ kind: 'chunked', index: { type: index } });
        else expect(() => layoutOf(file).layout.kind === 'chunked' && readChunkIndexOf(file), name).toThrow(Hdf5Unsupported);
        expect(await readerOf(file), name).toBe(reader);
      }
      // Two unlimited dimensions: a version 2 B-tree.
      const plain = await writeFixture(path.join(tmp, 'indexes', 'plain'), small);
      const file = path.join(tmp, 'indexes', 'btree2.nc');
      const src = libraryFile(plain);
      const out = new h5wasm.File(file, 'w', { libver: 'latest' });
      try {
        out.create_dataset({ name: 'tasmax', data: dataset(src, 'tasmax').value as Float32Array, shape: [366, 3, 3], maxshape: [null, null, 3], chunks: [50, 2, 2], compression: 'gzip' });
      } finally {
        out.close();
        src.close();
      }
      expect(() => layoutOf(file)).toThrow('chunks indexed by a version 2 B-tree');
      expect(await readerOf(file)).toBe('h5wasm');
    });

    it('names the filter a variable needs when neither reader has it, rather than reading whatever memory held', async () => {
      const file = await writeFixture(path.join(tmp, 'layouts', 'test-filter'), { ...small, shuffle: true, testFilter: true });
      expect(layoutOf(file).filters.map((f) => [f.id, f.name])).toEqual([[2, undefined], [1, undefined], [TEST_FILTER_ID, 'fixture test filter']]);
      const h = await Hdf5File.open(file);
      try {
        expect(() => h.readBlock('tasmax', [0, 2], [0, 3], [0, 3])).toThrow(
          `variable tasmax is compressed with filter ${TEST_FILTER_ID} (fixture test filter), which the ingest cannot decode (its own reader decodes deflate, shuffle and Fletcher-32, and the HDF5 library it carries has no plugins)`,
        );
      } finally {
        h.close();
      }
    });

    it('stops at contiguous values that would run past the end of the file, rather than asking the library', async () => {
      const file = await writeFixture(path.join(tmp, 'layouts', 'past-end'), { ...small, storage: 'contiguous' });
      const info = layoutOf(file);
      if (info.layout.kind !== 'contiguous') throw new Error('expected contiguous values');
      const bytes = fs.readFileSync(file);
      // The layout message: version 3, class 1 (contiguous), then the address.
      const address = Buffer.alloc(8);
      address.writeBigUInt64LE(BigInt(info.layout.address));
      const at = bytes.indexOf(Buffer.concat([Buffer.from([3, 1]), address]));
      expect(at).toBeGreaterThan(0);
      const moved = bytes.length - 100;
      bytes.writeBigUInt64LE(BigInt(moved), at + 2);
      fs.writeFileSync(file, bytes);
      const h = await Hdf5File.open(file);
      try {
        expect(() => h.readBlock('tasmax', [0, 1], [0, 1], [0, 1])).toThrow(
          `variable tasmax's values (bytes ${moved} to ${moved + 366 * 9 * 4}) run past the end of the file (${bytes.length} bytes): the file is truncated or damaged; download it again`,
        );
      } finally {
        h.close();
      }
    });

    it('calls a file shorter than its superblock says truncated', async () => {
      for (const [name, extra] of Object.entries({ library: {}, own: { shuffle: true }, contiguous: { storage: 'contiguous' as const } })) {
        const file = await writeFixture(path.join(tmp, 'truncated', name), { ...small, ...extra });
        const whole = fs.readFileSync(file);
        fs.writeFileSync(file, whole.subarray(0, Math.floor(whole.length * 0.6)));
        await expect(Hdf5File.open(file), name).rejects.toThrow(
          `it is truncated: its HDF5 superblock says the file is ${whole.length} bytes, but it has ${Math.floor(whole.length * 0.6)}; download it again`,
        );
      }
    });
  });
});
