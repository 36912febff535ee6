import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../scripts/localServers/ports.js';
import { ROOT } from '../src/config.js';
import { fetchRegion, recordFile, type FetchOptions, type FetchRecord } from '../src/ingest/fetchRegion.js';
import { testApp, type TestApp } from './helpers.js';
import { copyOfTestData, series, THROTTLE } from './ingest-support.js';
import { planArchive, writeArchive } from '../scripts/archiveModel/archive.js';
import { ingestNetcdf } from '../src/ingest/netcdf/ingest.js';
import { BOX, expectSamePartitions, FILES_BOX, fetchOptions, ingestedFromDisk, MODELS, partitions, writeFetchArchive, writeReRelease } from './support/fetchArchive.js';
import { startPublisherServer, type PublisherServer } from './support/publisherServer.js';
import { compiled } from './support/compiled.js';

/**
 * make fetch against a local stand-in for NASA's S3 bucket (test/support/publisherServer.ts) over
 * the scale model's NEX-GDDP-CMIP6 files of three calendars (gregorian, 365_day, 360_day), with a
 * v1.1 re-release beside one of them: the values served after a fetch are those of make ingest of
 * the same files from disk, through every fault the issue lists.
 */
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-fetch-'));
const archiveRoot = path.join(tmpRoot, 'archive');
const POINT = '44.625/-63.625';

let server: PublisherServer;
let fromDisk: string;
let diskApp: TestApp;
const keys = {
  accessPr: 'NEX-GDDP-CMIP6/ACCESS-CM2/ssp245/r1i1p1f1/pr/pr_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2052.nc',
  accessV11: 'NEX-GDDP-CMIP6/ACCESS-CM2/ssp245/r1i1p1f1/tasmax/tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2052_v1.1.nc',
  canesm: 'NEX-GDDP-CMIP6/CanESM5/ssp245/r1i1p1f1/tasmax/tasmax_day_CanESM5_ssp245_r1i1p1f1_gn_2052.nc',
  ukesm: 'NEX-GDDP-CMIP6/UKESM1-0-LL/ssp245/r1i1p1f2/tasmax/tasmax_day_UKESM1-0-LL_ssp245_r1i1p1f2_gn_2052.nc',
  canesmPr: 'NEX-GDDP-CMIP6/CanESM5/ssp245/r1i1p1f1/pr/pr_day_CanESM5_ssp245_r1i1p1f1_gn_2052.nc',
  ukesmPr: 'NEX-GDDP-CMIP6/UKESM1-0-LL/ssp245/r1i1p1f2/pr/pr_day_UKESM1-0-LL_ssp245_r1i1p1f2_gn_2052.nc',
};
const ALL = Object.values(keys).sort();

/** make fetch as a process (FETCH_CONCURRENCY=1), the archive's selection unless `bbox` and `models` say otherwise. */
function fetchCli(dir: string, downloads: string, { bbox = BOX, models = MODELS }: { bbox?: number[]; models?: string[] } = {}) {
  const child = spawn(process.execPath, [compiled('src/cli/fetch.ts'), '--dataset=NEX-GDDP-CMIP6', `--bbox=${bbox.join(',')}`, `--models=${models.join(',')}`, '--scenarios=ssp245', '--variables=tasmax,pr', '--years=2052', '--dry-run=', '--via=', '--points=', '--range-cells=', '--force='], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dir, ARCHIVE_URL_NEX_GDDP_CMIP6: server.url, FETCH_CONCURRENCY: '1', DOWNLOAD_DIR: downloads, QUEUE_URL: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, exited, err: () => err };
}

const options = (dataDir: string, downloads: string, log: string[], extra: Partial<FetchOptions> = {}): FetchOptions =>
  fetchOptions(server, dataDir, path.join(tmpRoot, downloads), log, extra);

/** Every partition of the fetched build holds the rows the ingest from disk wrote. */
const expectSameAsDisk = (dir: string) => expectSamePartitions(dir, fromDisk);

beforeAll(async () => {
  // With NASA's re-release of ACCESS-CM2's tasmax beside the original: the fetch must take it.
  await writeFetchArchive(archiveRoot, true);
  for (const k of Object.values(keys)) expect(fs.existsSync(path.join(archiveRoot, k))).toBe(true);
  // Two keys a page: every listing is paged.
  server = await startPublisherServer(archiveRoot, { pageKeys: 2 });
  fromDisk = await ingestedFromDisk(tmpRoot, archiveRoot);
  diskApp = await testApp(THROTTLE, fromDisk);
}, 300_000);

afterAll(async () => {
  await server?.close();
  fs.rmSync(tmpRoot, { recursive: true, force: true });
});

describe('make fetch from NEX-GDDP-CMIP6 on S3 (a local stand-in)', () => {
  it('lists the bucket, takes the newest version, downloads, checks and serves what make ingest of the same files serves', async () => {
    const dir = copyOfTestData(tmpRoot, 'fetched');
    const log: string[] = [];
    const before = server.served.length;
    const r = await fetchRegion(options(dir, 'dl-happy', log));
    expect(r.files.map((f) => f.path).sort()).toEqual(ALL);
    expect(r.ingest!.partitionsChanged).toBeGreaterThan(0);
    // Each file once, whole, no more than FETCH_CONCURRENCY at a time; listings paged.
    expect(server.served.slice(before).map((s) => [s.key, s.status]).sort()).toEqual(ALL.map((k) => [k, 200]));
    expect(server.maxInFlight).toBeLessThanOrEqual(2);
    expect(server.listings.some((l) => l.includes('continuation-token='))).toBe(true);
    // Each download deleted once staged.
    expect(fs.readdirSync(path.join(tmpRoot, 'dl-happy'), { recursive: true }).filter((f) => String(f).endsWith('.nc'))).toEqual([]);
    await expectSameAsDisk(dir);

    // Three calendars, served as the files hold them: the same answers as the ingest from disk.
    const app = await testApp(THROTTLE, dir);
    for (const model of MODELS) {
      const got = await series(app, POINT, 'ssp245', model, 2052, 'tasmax', 'NEX-GDDP-CMIP6');
      expect(got).toEqual(await series(diskApp, POINT, 'ssp245', model, 2052, 'tasmax', 'NEX-GDDP-CMIP6'));
      // 2052 is a leap year: 366 days on the gregorian calendar, Feb 29 missing on 365_day, 6 dates on 360_day.
      expect(got.filter((v) => v === null).length).toBe({ 'ACCESS-CM2': 0, CanESM5: 1, 'UKESM1-0-LL': 6 }[model]);
    }

    // The build's record of its sources: URL, bytes, md5 (checked against the index) and version per file.
    const record = JSON.parse(fs.readFileSync(recordFile(dir, 'NEX-GDDP-CMIP6'), 'utf8')) as FetchRecord;
    expect(record.files).toHaveLength(6);
    for (const f of record.files) {
      expect(f.url).toBe(`${server.url}/${f.path}`);
      expect(f.bytes).toBe(fs.statSync(path.join(archiveRoot, f.path)).size);
      expect(f.md5).toMatch(/^[0-9a-f]{32}$/);
      expect(f.md5_checked).toBe(true);
    }
    expect(record.files.find((f) => f.path === keys.accessV11)!.version).toBe('v1.1');
    expect(record.measured_mb_per_s).toBeGreaterThan(0);
    expect(log.some((l) => /^fetch: 6\/6 files staged, .* MB \(100%\), .* MB\/s, [\d,]+ values staged, ETA/.test(l))).toBe(true);

    // DRY_RUN (FORCE: the build holds every file now): the plan at the rate the fetch measured, and not a byte downloaded.
    const served = server.served.length;
    const dry: string[] = [];
    const plan = await fetchRegion(options(dir, 'dl-happy', dry, { dryRun: true, force: true }));
    expect(plan.ingest).toBeUndefined();
    expect(server.served.length).toBe(served);
    expect(dry.join('\n')).toMatch(/plan: 6 files, [\d.,]+ MB from NEX-GDDP-CMIP6/);
    expect(dry.join('\n')).toMatch(/ACCESS-CM2 ssp245 r1i1p1f1: 2 files \(pr, tasmax; 2052-2052; v1.0, v1.1\)/);
    expect(dry.join('\n')).toMatch(/md5 from the publisher's index for 6 of 6 files/);
    expect(dry.join('\n')).toMatch(/expected time: .* \(measured by the last fetch into this build\)/);
  }, 300_000);

  it('retries a cut connection (resuming with Range), 503 with Retry-After, 429, a bad md5 and an HTML page, and serves the same values', async () => {
    const dir = copyOfTestData(tmpRoot, 'faults');
    const log: string[] = [];
    const before = server.served.length;
    server.fault(keys.accessV11, { kind: 'cut', after: 5000 });
    server.fault(keys.accessPr, { kind: 'status', status: 503, retryAfter: '1' }, { kind: 'html' });
    server.fault(keys.canesm, { kind: 'status', status: 429 });
    server.fault(keys.ukesm, { kind: 'corrupt' });
    await fetchRegion(options(dir, 'dl-faults', log));
    const served = server.served.slice(before);
    const of = (key: string) => served.filter((s) => s.key === key);
    expect(of(keys.accessV11).map((s) => [s.status, s.range ?? null, s.fault ?? null])).toEqual([[200, null, 'cut'], [206, 'bytes=5000-', null]]);
    expect(of(keys.accessPr).map((s) => s.fault ?? s.status)).toEqual(['status', 'html', 200]);
    expect(of(keys.canesm).map((s) => s.fault ?? s.status)).toEqual(['status', 200]);
    expect(of(keys.ukesm).map((s) => s.fault ?? s.status)).toEqual(['corrupt', 200]);
    const text = log.join('\n');
    expect(text).toMatch(/GET \S+tasmax_day_ACCESS-CM2\S+_v1\.1\.nc: the connection was cut after 5,000 bytes/);
    expect(text).toMatch(/GET \S+pr_day_ACCESS-CM2\S+: GET \S+ answered 503 Service Unavailable: Slow Down; trying again in 1\.0 s/);
    expect(text).toMatch(/pr_day_ACCESS-CM2\S+: it answered with an HTML page, not a NetCDF file/);
    expect(text).toMatch(/CanESM5\S+ answered 429 Too Many Requests/);
    expect(text).toMatch(/UKESM1-0-LL\S+: the download's md5 [0-9a-f]{32} is not the publisher's [0-9a-f]{32}/);
    await expectSameAsDisk(dir);
  }, 300_000);

  it('killed mid-download and run again: downloads only what is missing, resuming the cut file with Range', async () => {
    const dir = copyOfTestData(tmpRoot, 'killed');
    const downloads = path.join(tmpRoot, 'dl-killed');
    const before = server.served.length;
    server.fault(keys.ukesm, { kind: 'stall', after: 4000 });
    const run = () => fetchCli(dir, downloads);
    const first = run();
    const part = path.join(downloads, `${keys.ukesm}.part`);
    await until('the UKESM1-0-LL download to stall with 4,000 bytes on disk', async () => fs.existsSync(part) && fs.statSync(part).size >= 4000, 120_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const beforeRerun = server.served.slice(before).map((s) => s.key);
    // One at a time (FETCH_CONCURRENCY=1), in the map step's order: the files before UKESM1-0-LL's were staged.
    expect(beforeRerun.at(-1)).toBe(keys.ukesm);
    const second = run();
    expect(await second.exited, second.err()).toBe(0);
    const served = server.served.slice(before);
    for (const k of beforeRerun.slice(0, -1)) expect(served.filter((s) => s.key === k), JSON.stringify(served)).toHaveLength(1);
    expect(served.filter((s) => s.key === keys.ukesm).map((s) => [s.status, s.range ?? null])).toEqual([[200, null], [206, 'bytes=4000-']]);
    expect(second.err()).toMatch(/files were staged by an earlier, interrupted run: not downloaded again/);
    await expectSameAsDisk(dir);
  }, 300_000);

  it('a re-run downloads nothing the build holds; a widened selection only what it adds; a newer version replaces the old; FORCE fetches all again', async () => {
    const dir = copyOfTestData(tmpRoot, 'held');
    const downloads = path.join(tmpRoot, 'dl-held');
    // One row of two cells inside BOX.
    const small: [number, number, number, number] = [-63.9, 44.3, -63.6, 44.45];
    const two = ['ACCESS-CM2', 'CanESM5'];
    const twoKeys = [keys.accessPr, keys.accessV11, keys.canesm, keys.canesmPr].sort();
    const since = (n: number) => server.served.slice(n);
    const askedFor = (n: number) => since(n).map((x) => x.key).sort();
    const record = () => JSON.parse(fs.readFileSync(recordFile(dir, 'NEX-GDDP-CMIP6'), 'utf8')) as FetchRecord;

    // A .part nothing vouches for (no record of what it is a part of): never resumed.
    const stray = path.join(downloads, `${keys.accessPr}.part`);
    fs.mkdirSync(path.dirname(stray), { recursive: true });
    fs.writeFileSync(stray, Buffer.alloc(3000, 7));
    let n = server.served.length;
    let log: string[] = [];
    await fetchRegion(options(dir, 'dl-held', log, { models: two, bbox: small }));
    expect(askedFor(n)).toEqual(twoKeys);
    expect(since(n).filter((x) => x.key === keys.accessPr).map((x) => [x.status, x.range ?? null])).toEqual([[200, null]]);
    expect(log.join('\n')).toMatch(/the 3,000 bytes in \S+pr_day_ACCESS-CM2\S+\.part are not known to be of this file .*no record of what it is a part of.*: downloading it from its first byte/);
    for (const f of record().files) expect(f.regions).toEqual([{ bbox: small, cities: true }]);

    // The same selection again, as a process: nothing downloaded or decoded, one line, exit 0.
    n = server.served.length;
    const again = fetchCli(dir, downloads, { bbox: small, models: two });
    expect(await again.exited, again.err()).toBe(0);
    expect(since(n)).toEqual([]);
    const said = again.err().split('\n').filter((l) => /nothing to fetch/.test(l));
    expect(said).toEqual([expect.stringMatching(/^nothing to fetch: the build in \S+ already holds all 4 files of the selection for these cells .*; FORCE=1 fetches them again$/)]);
    expect(again.err()).not.toMatch(/ingest NEX-GDDP-CMIP6 into|fetch: \d+\/\d+ files staged/);

    // One more model: its files only.
    n = server.served.length;
    log = [];
    const more = await fetchRegion(options(dir, 'dl-held', log, { bbox: small }));
    expect(askedFor(n)).toEqual([keys.ukesm, keys.ukesmPr].sort());
    expect(more.held.map((f) => f.path).sort()).toEqual(twoKeys);
    expect(log).toContain('the build already holds 4 of the 6 files of the selection for these cells: fetching the other 2 (FORCE=1 fetches all)');

    // A bigger box: every file covers the globe, and none was ingested for the box's new cells, so all six again.
    n = server.served.length;
    await fetchRegion(options(dir, 'dl-held', []));
    expect(askedFor(n)).toEqual(ALL);
    await expectSameAsDisk(dir);
    for (const f of record().files) expect(f.regions).toEqual([{ bbox: small, cities: true }, { bbox: BOX, cities: true }]);
    // ... and the smaller box inside it is held.
    n = server.served.length;
    expect((await fetchRegion(options(dir, 'dl-held', [], { bbox: small }))).files).toEqual([]);
    expect(since(n)).toEqual([]);

    // NASA re-releases CanESM5's pr (the same values): that file only, and the record names it instead of the old one.
    const v12 = await writeReRelease(archiveRoot, 'CanESM5', 'pr', '1.2', 0);
    try {
      n = server.served.length;
      log = [];
      await fetchRegion(options(dir, 'dl-held', log));
      expect(askedFor(n)).toEqual([v12]);
      expect(log).toContain(`replacing ${v12}: the publisher's v1.2 replaces the build's v1.0 (${keys.canesmPr})`);
      const paths = record().files.map((f) => f.path);
      expect(paths).toContain(v12);
      expect(paths).not.toContain(keys.canesmPr);
      expect(record().files.find((f) => f.path === v12)!.regions).toEqual([{ bbox: BOX, cities: true }]);
      await expectSameAsDisk(dir);

      // FORCE: every file again.
      n = server.served.length;
      log = [];
      await fetchRegion(options(dir, 'dl-held', log, { force: true }));
      expect(askedFor(n)).toEqual([...ALL.filter((k) => k !== keys.canesmPr), v12].sort());
      expect(log).toContain('FORCE=1: fetching all 6 files of the selection again, whatever the build\'s record says it holds');
    } finally {
      fs.rmSync(path.join(archiveRoot, v12));
    }
  }, 300_000);

  it('fails naming the URL of a file the server does not have (404, not retried), and publishes nothing', async () => {
    const dir = copyOfTestData(tmpRoot, 'missing');
    const manifest = fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8');
    const cells = fs.readFileSync(path.join(dir, 'catalog', 'map_cell.parquet'));
    const before = server.served.length;
    server.missing.add(keys.ukesm);
    try {
      await expect(fetchRegion(options(dir, 'dl-missing', []))).rejects.toThrow(
        new RegExp(`GET ${server.url}/${keys.ukesm.replace(/\./g, '\\.')} answered 404 Not Found .*NoSuchKey.*: the publisher has no such file`),
      );
    } finally {
      server.missing.delete(keys.ukesm);
    }
    expect(server.served.slice(before).filter((s) => s.key === keys.ukesm)).toHaveLength(1);
    expect(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')).toBe(manifest);
    expect(fs.readFileSync(path.join(dir, 'catalog', 'map_cell.parquet')).equals(cells)).toBe(true);
    expect(fs.existsSync(recordFile(dir, 'NEX-GDDP-CMIP6'))).toBe(false);
    expect(partitions(dir)).toEqual(partitions(copyOfTestData(tmpRoot, 'untouched')));
  }, 300_000);

  it('refuses a selection it cannot fetch, saying why', async () => {
    const dir = copyOfTestData(tmpRoot, 'refused');
    const ask = (extra: Partial<FetchOptions>) => fetchRegion(options(dir, 'dl-refused', [], extra));
    await expect(ask({ models: ['ACCESS1-0'] })).rejects.toThrow(/MODELS: ACCESS1-0 is not among NEX-GDDP-CMIP6's ACCESS-CM2, /);
    await expect(ask({ scenarios: ['rcp85'] })).rejects.toThrow(/SCENARIOS: rcp85 is not among NEX-GDDP-CMIP6's historical, /);
    await expect(ask({ variables: ['hursmin'] })).rejects.toThrow(/VARIABLES: hursmin is not among NEX-GDDP-CMIP6's tasmax, tasmin, pr, tas, hurs, huss/);
    await expect(ask({ bbox: undefined, points: [] })).rejects.toThrow(/BBOX \(west,south,east,north\) or POINTS .* is required/);
    await expect(ask({ dataset: 'LOCA2', archiveUrls: { 'NEX-GDDP-CMIP6': server.url } })).rejects.toThrow(/ARCHIVE_URL_LOCA2 is not set: make fetch needs the address of LOCA2's archive/);
    // A member the service does not offer: the bucket's member is named.
    await expect(ask({ models: ['GFDL-CM4'], scenarios: ['ssp245'] })).rejects.toThrow(/has no files under NEX-GDDP-CMIP6\/GFDL-CM4\/ssp245\/ \(ListObjectsV2\)/);
    expect(server.served.filter((x) => x.key.includes('GFDL'))).toEqual([]);
  });
});

describe('make fetch VARIABLES=tas,hurs,huss', () => {
  let humidServer: PublisherServer;
  const humidRoot = path.join(tmpRoot, 'humid-archive');
  const humidModels = ['ACCESS-CM2', 'CanESM5'];

  beforeAll(async () => {
    // NESM3 as NASA publishes it: tasmax and tas, no hurs or huss.
    await writeArchive(humidRoot, planArchive({ dataset: 'NEX-GDDP-CMIP6', models: [...humidModels, 'NESM3'], scenarios: ['ssp245'], years: [2052, 2052], variables: ['tasmax', 'tas', 'hurs', 'huss'], bbox: FILES_BOX }));
    humidServer = await startPublisherServer(humidRoot);
  }, 300_000);
  afterAll(async () => {
    await humidServer?.close();
  });

  it('lists and fetches NASA\'s humidity files and serves what make ingest of them from disk serves; by default it fetches tasmax, tasmin and pr only', async () => {
    const humidOptions = (dir: string, log: string[], extra: Partial<FetchOptions> = {}) =>
      options(dir, 'dl-humid', log, { models: humidModels, archiveUrls: { 'NEX-GDDP-CMIP6': humidServer.url }, variables: ['tas', 'hurs', 'huss'], ...extra });
    const dir = copyOfTestData(tmpRoot, 'fetched-humid');
    const r = await fetchRegion(humidOptions(dir, []));
    expect(r.files.map((f) => `${f.model} ${f.variable}`).sort()).toEqual(humidModels.flatMap((m) => ['huss', 'hurs', 'tas'].map((v) => `${m} ${v}`)).sort());

    const disk = copyOfTestData(tmpRoot, 'humid-from-disk');
    await ingestNetcdf({ dataDir: disk, dataset: 'NEX-GDDP-CMIP6', sources: [humidRoot], bbox: BOX, log: () => {} });
    const [fetched, fromFiles] = [await testApp(THROTTLE, dir), await testApp(THROTTLE, disk)];
    for (const model of humidModels) {
      for (const variable of ['tas', 'hurs', 'huss']) {
        const got = await series(fetched, POINT, 'ssp245', model, 2052, variable, 'NEX-GDDP-CMIP6');
        expect(got.filter((v) => v !== null)).toHaveLength(model === 'CanESM5' ? 365 : 366);
        expect(got).toEqual(await series(fromFiles, POINT, 'ssp245', model, 2052, variable, 'NEX-GDDP-CMIP6'));
      }
    }
    // Left to their defaults, the variables are tasmax, tasmin and pr: the archive's tasmax only here.
    const dry: string[] = [];
    const plan = await fetchRegion(humidOptions(dir, dry, { variables: undefined, dryRun: true }));
    expect([...new Set(plan.files.map((f) => f.variable))]).toEqual(['tasmax']);
  }, 300_000);

  it('says once that the publisher never made a model\'s hurs or huss, not that the archive misses its years, and fetches the rest', async () => {
    const log: string[] = [];
    const plan = await fetchRegion(
      options(copyOfTestData(tmpRoot, 'humid-gap'), 'dl-humid-gap', log, { models: ['ACCESS-CM2', 'NESM3'], archiveUrls: { 'NEX-GDDP-CMIP6': humidServer.url }, variables: ['tas', 'hurs', 'huss'], dryRun: true }),
    );
    expect(plan.files.map((f) => `${f.model} ${f.variable}`).sort()).toEqual(['ACCESS-CM2 hurs', 'ACCESS-CM2 huss', 'ACCESS-CM2 tas', 'NESM3 tas']);
    const notes = log.filter((l) => l.startsWith('note:') && l.includes('NESM3'));
    expect(notes).toEqual([
      'note: NEX-GDDP-CMIP6 publishes no hurs of NESM3 (a known gap of the publisher, listed under models_lacking at /api/dataset/): answers that need hurs leave NESM3 out',
      'note: NEX-GDDP-CMIP6 publishes no huss of NESM3 (a known gap of the publisher, listed under models_lacking at /api/dataset/): answers that need huss leave NESM3 out',
    ]);
    expect(log.join('\n')).not.toMatch(/archive has no/);
  }, 300_000);
});
