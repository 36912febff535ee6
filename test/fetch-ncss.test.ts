import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchRegion, recordFile, type FetchOptions, type FetchRecord } from '../src/ingest/fetchRegion.js';
import { testApp, type TestApp } from './helpers.js';
import { copyOfTestData, series, THROTTLE } from './ingest-support.js';
import { expectSamePartitions, fetchOptions, ingestedFromDisk, MODELS, writeFetchArchive } from './support/fetchArchive.js';
import { startPublisherServer, type PublisherServer } from './support/publisherServer.js';
import { startNcssServer, type NcssServer } from './support/ncssServer.js';

/**
 * make fetch VIA=ncss: the files of the S3 listing (newest version, exact member), each asked of a
 * local stand-in for NASA's THREDDS NCSS (test/support/ncssServer.ts) for its variable over the box,
 * over the scale model's files of three calendars: the values served are those of make ingest of
 * the whole files from disk, also when the server's size limit makes the fetch split its requests.
 */
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-ncss-'));
const archiveRoot = path.join(tmpRoot, 'archive');
const POINT = '44.625/-63.625';
const UKESM_TASMAX = 'UKESM1-0-LL/ssp245/r1i1p1f2/tasmax/tasmax_day_UKESM1-0-LL_ssp245_r1i1p1f2_gn_2052.nc';

let s3: PublisherServer;
let ncss: NcssServer;
let fromDisk: string;
let diskApp: TestApp;

const options = (dataDir: string, downloads: string, log: string[], extra: Partial<FetchOptions> = {}): FetchOptions =>
  fetchOptions(s3, dataDir, path.join(tmpRoot, downloads), log, { via: 'ncss', ncssUrl: ncss.url, ...extra });

const filesUnder = (dir: string) => fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => fs.statSync(path.join(dir, f)).isFile());

const expectSameAsDisk = (dir: string) => expectSamePartitions(dir, fromDisk);

beforeAll(async () => {
  // With a v1.1 re-release beside ACCESS-CM2's tasmax: the listing's newest version is the one subset.
  await writeFetchArchive(archiveRoot, true);
  s3 = await startPublisherServer(archiveRoot);
  ncss = await startNcssServer(archiveRoot);
  fromDisk = await ingestedFromDisk(tmpRoot, archiveRoot);
  diskApp = await testApp(THROTTLE, fromDisk);
}, 300_000);

afterAll(async () => {
  await s3?.close();
  await ncss?.close();
  fs.rmSync(tmpRoot, { recursive: true, force: true });
});

describe('make fetch VIA=ncss (NEX-GDDP-CMIP6 subsets from a local stand-in for NCCS THREDDS)', () => {
  it('asks NCSS for each listed file over the box and serves what make ingest of the whole files serves, three calendars', async () => {
    const dir = copyOfTestData(tmpRoot, 'ncss');
    const log: string[] = [];
    const [s3Before, ncssBefore] = [s3.served.length, ncss.requests.length];
    const r = await fetchRegion(options(dir, 'dl-ncss', log));
    expect(r.files).toHaveLength(6);
    // No whole file and no md5 index from the bucket: its listing only.
    expect(s3.served.slice(s3Before)).toEqual([]);
    const asked = ncss.requests.slice(ncssBefore);
    expect(asked.map((q) => q.status)).toEqual(Array(6).fill(200));
    expect(asked.map((q) => q.path).sort()).toEqual(r.files.map((f) => f.path.replace(/^NEX-GDDP-CMIP6\//, '')).sort());
    expect(asked.some((q) => q.path.endsWith('_2052_v1.1.nc'))).toBe(true);
    for (const q of asked) {
      // The cells of the box, by their edges, longitudes in the files' 0..360.
      expect(q.params).toMatchObject({ north: '45', south: '44.25', west: '296', east: '297', accept: 'netcdf4', addLatLon: 'true', time_start: '2052-01-01T00:00:00Z' });
      expect(q.params.var).toBe(q.path.split('/')[3]);
      // A 360_day year ends on 12-30: 12-31 is no date of it (the server answers 400 to it, below).
      expect(q.params.time_end).toBe(q.path.startsWith('UKESM1-0-LL/') ? '2052-12-30T23:59:59Z' : '2052-12-31T23:59:59Z');
    }
    expect(filesUnder(path.join(tmpRoot, 'dl-ncss'))).toEqual([]);
    await expectSameAsDisk(dir);
    const app = await testApp(THROTTLE, dir);
    for (const model of MODELS) {
      const got = await series(app, POINT, 'ssp245', model, 2052, 'tasmax', 'NEX-GDDP-CMIP6');
      expect(got).toEqual(await series(diskApp, POINT, 'ssp245', model, 2052, 'tasmax', 'NEX-GDDP-CMIP6'));
      expect(got.filter((v) => v === null).length).toBe({ 'ACCESS-CM2': 0, CanESM5: 1, 'UKESM1-0-LL': 6 }[model]);
    }
    const record = JSON.parse(fs.readFileSync(recordFile(dir, 'NEX-GDDP-CMIP6'), 'utf8')) as FetchRecord;
    expect(record.archive).toBe(`${ncss.url} (files listed by ${s3.url})`);
    for (const f of record.files) {
      expect(f.url.startsWith(`${ncss.url}/`)).toBe(true);
      expect(f.md5).toMatch(/^[0-9a-f]{32}$/);
      expect(f.md5_checked).toBe(false);
    }
    expect(record.files.find((f) => f.path.endsWith('_v1.1.nc'))!.version).toBe('v1.1');

    // What a request asking 12-31 of the 360_day file gets: the server's calendar is enforced.
    const wrong = new URL(`${ncss.url}/${UKESM_TASMAX}`);
    for (const [k, v] of Object.entries({ var: 'tasmax', north: '45', south: '44.25', west: '296', east: '297', time_start: '2052-01-01T00:00:00Z', time_end: '2052-12-31T23:59:59Z', accept: 'netcdf4' })) wrong.searchParams.set(k, v);
    const res = await fetch(wrong);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/time_end=2052-12-31T23:59:59Z is not a date of calendar 360_day/);
  }, 300_000);

  // A server that answers the cells whose edge lies on a side of the box (as TDS may) puts the rows
  // on each cut in both halves; one that answers the cells whose centre lies in the box does not.
  it.each([
    { edgeCells: false, maxBytes: 6000 },
    { edgeCells: true, maxBytes: 30_000 },
  ])('splits a box NCSS answers "Request Too Large" for, and stitches the halves into the same values (edge cells included: $edgeCells)', async ({ edgeCells, maxBytes }) => {
    const dir = copyOfTestData(tmpRoot, `split-${edgeCells}`);
    const downloads = `dl-split-${edgeCells}`;
    const log: string[] = [];
    const before = ncss.requests.length;
    // The box is 3 x 4 cells (5 x 6 with the cells touching its sides): 366 days of them are 17,568
    // (43,920) bytes; the limit forces two cuts.
    ncss.maxBytes = maxBytes;
    ncss.edgeCells = edgeCells;
    try {
      await fetchRegion(options(dir, downloads, log));
    } finally {
      ncss.maxBytes = Number.MAX_SAFE_INTEGER;
      ncss.edgeCells = false;
    }
    const asked = ncss.requests.slice(before);
    expect(asked.filter((q) => q.status === 403).every((q) => /^Request Too Large: /.test(q.message!))).toBe(true);
    // Per file: the whole box (403), its halves of 1 and 2 rows, the 2-row half (403) in rows, the 1-row ones.
    const ofUkesm = asked.filter((q) => q.path === UKESM_TASMAX);
    expect(ofUkesm.map((q) => q.status)).toEqual([403, 200, 403, 200, 200]);
    // Each 1-row part answered with the rows on both its sides when edge cells count.
    const rowsOf = (q: (typeof asked)[number]) => Math.round((Number(q.params.north) - Number(q.params.south)) / 0.25);
    expect(ofUkesm.filter((q) => q.status === 200).map((q) => q.cells![0] - rowsOf(q))).toEqual(Array(3).fill(edgeCells ? 2 : 0));
    expect(asked.filter((q) => q.status !== 200 && q.status !== 403)).toEqual([]);
    expect(log.join('\n')).toMatch(/NCSS answered "Request Too Large" for 3 x 4 cells; asking for two halves of 1 x 4 and 2 x 4/);
    // Neither the halves nor the stitched files are left.
    expect(filesUnder(path.join(tmpRoot, downloads))).toEqual([]);
    await expectSameAsDisk(dir);
  }, 300_000);

  it('fails naming the URL and the server\'s message on a 404 and a 400, and publishes nothing', async () => {
    const dir = copyOfTestData(tmpRoot, 'refused');
    const manifest = fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8');
    ncss.missing.add(UKESM_TASMAX);
    try {
      await expect(fetchRegion(options(dir, 'dl-404', []))).rejects.toThrow(
        new RegExp(`GET ${ncss.url}/${UKESM_TASMAX.replace(/\./g, '\\.')}\\?var=tasmax&\\S+ answered 404: FileNotFound: Not a dataset: .* NCSS has no such dataset; fetch whole files \\(VIA=s3\\)`),
      );
    } finally {
      ncss.missing.delete(UKESM_TASMAX);
    }
    // A box on the grid but off the files' cells: the server refuses it (400), the fetch says so.
    await expect(fetchRegion(options(dir, 'dl-400', [], { bbox: [10, 10, 10.5, 10.5] }))).rejects.toThrow(
      /GET http:\/\/127\.0\.0\.1:\d+\/thredds\/ncss\/grid\/AMES\/NEX\/GDDP-CMIP6\/\S+\?var=\w+&north=10\.75&south=10&west=10&east=10\.75\S* answered 400: Invalid Request: the bounding box does not intersect the grid .*NCSS refused the subset request; check BBOX/,
    );
    expect(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')).toBe(manifest);
    expect(fs.existsSync(recordFile(dir, 'NEX-GDDP-CMIP6'))).toBe(false);
  }, 300_000);

  it('DRY_RUN=1 plans the subsets from the listing and asks NCSS nothing', async () => {
    const dir = copyOfTestData(tmpRoot, 'dry');
    const log: string[] = [];
    const [s3Before, ncssBefore, listings] = [s3.served.length, ncss.requests.length, s3.listings.length];
    const plan = await fetchRegion(options(dir, 'dl-dry', log, { dryRun: true }));
    expect(plan.ingest).toBeUndefined();
    expect(ncss.requests.length).toBe(ncssBefore);
    expect(s3.served.length).toBe(s3Before);
    expect(s3.listings.length).toBeGreaterThan(listings);
    const text = log.join('\n');
    // 3 x 4 cells x 366 days (360 for UKESM1-0-LL) x 4 bytes, and a header's room each.
    expect(text).toMatch(/plan: 6 files, about 0\.2 MB from NEX-GDDP-CMIP6 as NCSS subsets of the box/);
    expect(text).toMatch(/ACCESS-CM2 ssp245 r1i1p1f1: 2 files \(pr, tasmax; 2052-2052; v1.0, v1.1\)/);
    expect(text).toMatch(/UKESM1-0-LL ssp245 r1i1p1f2: 2 files/);
    expect(text).toMatch(new RegExp(`each subset is checked as NetCDF .*first request: ${ncss.url.replace(/\./g, '\\.')}/\\S+\\?var=`));
    expect(text).toMatch(/expected time: .* Nothing was downloaded \(DRY_RUN=1\)/);
    expect(fs.existsSync(path.join(tmpRoot, 'dl-dry'))).toBe(false);
  }, 300_000);
});
