import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFixture, type FixtureSpec } from '../scripts/archiveModel/fixtureFiles.js';
import { SAMPLE_FIXTURES, SEA_CELL } from '../scripts/archiveModel/fixtureSets.js';
import { ROOT } from '../src/config.js';
import type { Bbox } from '../src/ingest/netcdf/cellSelection.js';
import { ingestNetcdf } from '../src/ingest/netcdf/ingest.js';
import { fetchRegion, recordFile, type FetchOptions, type FetchRecord } from '../src/ingest/fetchRegion.js';
import { testApp } from './helpers.js';
import { copyOfTestData, expectSameFiles, series, THROTTLE } from './ingest-support.js';
import { localFetchSettings, startPublisherServer, type PublisherServer } from './support/publisherServer.js';
import { compiled } from './support/compiled.js';

/**
 * make fetch of NEX-GDDP and LOCA (the nasanex bucket's JSON indexes) and LOCA2 (Scripps's folder
 * pages) against the local stand-in (test/support/publisherServer.ts), over the fixture builder's
 * NEX-GDDP, LOCA and LOCA2 sample sets laid out in the publishers' own folders, with a newer
 * version beside an older one in each: the files come from the index or pages, the newest version
 * is fetched and recorded, and the values served equal make ingest of the same files from disk.
 */
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-fetch-datasets-'));
const archiveRoot = path.join(tmpRoot, 'archive');
let server: PublisherServer;

const rcp = (scenario: string) => scenario.toLowerCase();
/** The nasanex bucket's folders (archive-access.md sections 3 and 4). */
const nexFolder = (s: FixtureSpec, version = 'v1.0') => `NEX-GDDP/BCSD/${rcp(s.scenario)}/day/atmos/${s.variable}/r1i1p1/${version}`;
const locaFolder = (s: FixtureSpec) => `LOCA/${s.model}/16th/${rcp(s.scenario)}/r1i1p1/${s.variable}`;
/** Scripps's folders: NAmer, or the region's split. */
const loca2Folder = (s: FixtureSpec) =>
  s.region
    ? `LOCA2/CONUS_regions_split/${s.model}/${s.region}/0p0625deg/${s.member ?? 'r1i1p1f1'}/${s.scenario}/${s.variable}`
    : `LOCA2/NAmer/${s.model}/0p0625deg/${s.member ?? 'r1i1p1f1'}/${s.scenario}/${s.variable}`;

/** Writes a sample file into the archive's folder; returns its key (path below the archive's root). */
async function put(folder: string, spec: FixtureSpec): Promise<string> {
  const file = await writeFixture(path.join(archiveRoot, folder), spec);
  return path.relative(archiveRoot, file).split(path.sep).join('/');
}

const keys: Record<string, string> = {};
const bytesOf = (ks: string[]) => ks.reduce((n, k) => n + fs.statSync(path.join(archiveRoot, k)).size, 0);
const mb = (bytes: number) => (bytes / 1e6).toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });

beforeAll(async () => {
  // NEX-GDDP: the sample set (the file named by its attributes only is not the publisher's), with
  // the sea cell; CCSM4's tasmax also re-released in a v1.1 folder, 8 K warmer: the fetch takes it.
  for (const spec of SAMPLE_FIXTURES.nex.filter((s) => !s.fileName)) {
    const key = await put(nexFolder(spec), { ...spec, fillCells: [SEA_CELL] });
    keys[`nex ${spec.model} ${spec.scenario} ${spec.variable}`] = key;
  }
  const ccsm4 = SAMPLE_FIXTURES.nex.find((s) => s.model === 'CCSM4' && s.variable === 'tasmax')!;
  keys['nex CCSM4 v1.1'] = await put(nexFolder(ccsm4, 'v1.1'), { ...ccsm4, fillCells: [SEA_CELL], shift: 8 });
  for (const spec of SAMPLE_FIXTURES.loca) keys[`loca ${spec.model} ${spec.variable}`] = await put(locaFolder(spec), spec);
  // LOCA2: the sample set (pr in two versions, a monthly aggregate, HadGEM3-GC31-LL's n_east split),
  // and HadGEM3-GC31-LL's NAmer file beside its split, 3 K warmer: which one was fetched shows.
  for (const spec of SAMPLE_FIXTURES.loca2) {
    keys[`loca2 ${spec.model} ${spec.variable} ${spec.version ?? ''} ${spec.aggregate ?? ''} ${spec.region ?? ''}`.replace(/ +/g, ' ').trim()] = await put(loca2Folder(spec), spec);
  }
  const split = SAMPLE_FIXTURES.loca2.find((s) => s.region)!;
  keys['loca2 HadGEM3-GC31-LL NAmer'] = await put(loca2Folder({ ...split, region: undefined }), { ...split, region: undefined, shift: 3 });
  server = await startPublisherServer(archiveRoot);
}, 300_000);

afterAll(async () => {
  await server?.close();
  fs.rmSync(tmpRoot, { recursive: true, force: true });
});

interface Case {
  dataset: 'NEX-GDDP' | 'LOCA' | 'LOCA2';
  url: () => string;
  /** Where the base URL sits in the server's tree: a file's path below the base is its key without it. */
  prefix: string;
  box: Bbox;
  models: string[];
  scenarios: string[];
  years: [number, number];
  /** What the fetch of the box must take, newest versions only. */
  expected: () => string[];
  /** All the archive holds of the dataset (DRY_RUN with MODELS, SCENARIOS, VARIABLES and YEARS left out). */
  all: () => string[];
  point: string;
  serie: [string, string, number];
}

const CASES: Case[] = [
  {
    dataset: 'NEX-GDDP',
    url: () => server.url,
    prefix: '',
    box: [-74.3, 40.5, -73.4, 41.0],
    models: ['ACCESS1-0', 'CCSM4', 'MIROC5'],
    scenarios: ['RCP85'],
    years: [2052, 2052],
    expected: () => [
      keys['nex ACCESS1-0 RCP85 tasmax']!, keys['nex ACCESS1-0 RCP85 tasmin']!, keys['nex ACCESS1-0 RCP85 pr']!,
      keys['nex CCSM4 v1.1']!, keys['nex CCSM4 RCP85 tasmin']!, keys['nex MIROC5 RCP85 tasmax']!,
    ],
    all: () => [...CASES[0]!.expected(), keys['nex ACCESS1-0 historical tasmax']!],
    point: '40.625/-73.875',
    serie: ['RCP85', 'CCSM4', 2052],
  },
  {
    dataset: 'LOCA',
    url: () => server.url,
    prefix: '',
    box: [-74.05, 40.65, -73.9, 40.8],
    models: ['ACCESS1-0', 'CCSM4'],
    scenarios: ['RCP85'],
    years: [2052, 2052],
    expected: () => [keys['loca ACCESS1-0 tasmax']!, keys['loca ACCESS1-0 tasmin']!, keys['loca ACCESS1-0 pr']!, keys['loca CCSM4 tasmax']!],
    all: () => CASES[1]!.expected(),
    point: '40.71875/-73.96875',
    serie: ['RCP85', 'ACCESS1-0', 2052],
  },
  {
    dataset: 'LOCA2',
    url: () => `${server.url}/LOCA2`,
    prefix: 'LOCA2/',
    box: [-74.06, 40.69, -73.94, 40.75],
    models: ['ACCESS-CM2', 'HadGEM3-GC31-LL'],
    scenarios: ['ssp245', 'ssp585'],
    years: [2015, 2100],
    expected: () => [
      keys['loca2 ACCESS-CM2 tasmax']!, keys['loca2 ACCESS-CM2 tasmin']!, keys['loca2 ACCESS-CM2 pr 20240915']!, keys['loca2 HadGEM3-GC31-LL tasmax n_east']!,
    ],
    all: () => CASES[2]!.expected(),
    point: '40.71875/-74.03125',
    serie: ['ssp585', 'HadGEM3-GC31-LL', 2080],
  },
];

const options = (c: Case, dataDir: string, downloads: string, log: string[], extra: Partial<FetchOptions> = {}): FetchOptions => ({
  dataDir,
  dataset: c.dataset,
  bbox: c.box,
  models: c.models,
  scenarios: c.scenarios,
  years: c.years,
  ...localFetchSettings(server, path.join(tmpRoot, downloads), log),
  ...extra,
});

/** Every partition file of a dataset in a build, relative to its folder. */
const partitions = (dir: string, dataset: string) => {
  const root = path.join(dir, 'climate', dataset);
  return fs.existsSync(root) ? (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.parquet')).sort() : [];
};

describe.each(CASES)('make fetch $dataset (a local stand-in for its publisher)', (c) => {
  it('DRY_RUN: plans every file the archive has of the dataset when MODELS, SCENARIOS, VARIABLES and YEARS are left out, downloading nothing', async () => {
    const dir = copyOfTestData(tmpRoot, `${c.dataset}-dry`);
    const log: string[] = [];
    const before = server.served.length;
    const plan = await fetchRegion(options(c, dir, `${c.dataset}-dl-dry`, log, { models: undefined, scenarios: undefined, years: undefined, dryRun: true }));
    expect(plan.files.map((f) => c.prefix + f.path).sort()).toEqual(c.all().sort());
    expect(plan.bytes).toBe(bytesOf(c.all()));
    expect(server.served.length).toBe(before);
    expect(log.join('\n')).toContain(`plan: ${c.all().length} files, ${mb(bytesOf(c.all()))} MB from ${c.dataset}`);
    expect(log.join('\n')).toMatch(/Nothing was downloaded \(DRY_RUN=1\)/);
    expect(fs.existsSync(recordFile(dir, c.dataset))).toBe(false);
  });

  it('fetches a small box (the newest versions; an HTML page answered 200 is a failed download, tried again) and serves what make ingest of the same files serves', async () => {
    const dir = copyOfTestData(tmpRoot, `${c.dataset}-fetched`);
    const fromDisk = copyOfTestData(tmpRoot, `${c.dataset}-from-disk`);
    const expected = c.expected();
    await ingestNetcdf({ dataDir: fromDisk, dataset: c.dataset, sources: expected.map((k) => path.join(archiveRoot, k)), bbox: c.box, log: () => {} });
    const log: string[] = [];
    const before = server.served.length;
    server.fault(expected[0]!, { kind: 'html' });
    const r = await fetchRegion(options(c, dir, `${c.dataset}-dl`, log));
    expect(r.files.map((f) => c.prefix + f.path).sort()).toEqual([...expected].sort());
    const served = server.served.slice(before);
    expect(served.filter((s) => s.key === expected[0]).map((s) => s.fault ?? s.status)).toEqual(['html', 200]);
    expect(log.join('\n')).toMatch(/: it answered with an HTML page, not a NetCDF file; trying again/);
    // Each file once (and the HTML page's file twice), all from this server, whatever host the index names.
    expect(served.map((s) => s.key).sort()).toEqual([...expected, expected[0]!].sort());

    expect(partitions(dir, c.dataset).length).toBeGreaterThan(0);
    expect(partitions(dir, c.dataset)).toEqual(partitions(fromDisk, c.dataset));
    await expectSameFiles(partitions(fromDisk, c.dataset).map((p) => [path.join(dir, 'climate', c.dataset, p), path.join(fromDisk, 'climate', c.dataset, p)]));
    const [scenario, model, year] = c.serie;
    const got = await series(await testApp(THROTTLE, dir), c.point, scenario, model, year, 'tasmax', c.dataset);
    expect(got.filter((v) => v !== null).length).toBeGreaterThan(300);
    expect(got).toEqual(await series(await testApp(THROTTLE, fromDisk), c.point, scenario, model, year, 'tasmax', c.dataset));

    const record = JSON.parse(fs.readFileSync(recordFile(dir, c.dataset), 'utf8')) as FetchRecord;
    expect(record.archive).toBe(c.url());
    expect(record.files.map((f) => c.prefix + f.path).sort()).toEqual([...expected].sort());
    for (const f of record.files) {
      expect(f.url).toBe(`${c.url()}/${f.path}`);
      expect(f.bytes).toBe(fs.statSync(path.join(archiveRoot, c.prefix + f.path)).size);
      expect(f.md5_checked).toBe(false);
    }
    const versions = Object.fromEntries(record.files.map((f) => [path.basename(f.path), f.version]));
    if (c.dataset === 'NEX-GDDP') expect(versions[path.basename(keys['nex CCSM4 v1.1']!)]).toBe('v1.1');
    if (c.dataset === 'LOCA') expect(new Set(Object.values(versions))).toEqual(new Set(['LOCA_2016-04-02']));
    if (c.dataset === 'LOCA2') expect(versions[path.basename(keys['loca2 ACCESS-CM2 pr 20240915']!)]).toBe('v20240915');
  }, 300_000);

  it('fails naming the URL of a file its index lists but the server does not have (404), downloading and publishing nothing', async () => {
    const dir = copyOfTestData(tmpRoot, `${c.dataset}-missing`);
    const manifest = fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8');
    const before = server.served.length;
    const gone = c.expected()[1]!;
    server.missing.add(gone);
    try {
      await expect(fetchRegion(options(c, dir, `${c.dataset}-dl-missing`, []))).rejects.toThrow(
        new RegExp(`HEAD \\S+/${path.basename(gone).replace(/\./g, '\\.')} answered 404 Not Found: the publisher's index lists a file its server does not have`),
      );
    } finally {
      server.missing.delete(gone);
    }
    expect(server.served.length).toBe(before);
    expect(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')).toBe(manifest);
    expect(fs.existsSync(recordFile(dir, c.dataset))).toBe(false);
    expect(partitions(dir, c.dataset)).toEqual(partitions(copyOfTestData(tmpRoot, `${c.dataset}-untouched`), c.dataset));
  });
});

describe('make fetch LOCA2: the region split', () => {
  it('takes the split folder whose region covers the box, NAmer for a box outside every region, and NAmer for a model without a split', async () => {
    const c = CASES[2]!;
    const plan = async (box: Bbox) => {
      const log: string[] = [];
      const r = await fetchRegion(options(c, copyOfTestData(tmpRoot, `LOCA2-split-${box[0]}`), 'LOCA2-dl-split', log, { bbox: box, dryRun: true, variables: ['tasmax'] }));
      return { paths: r.files.map((f) => c.prefix + f.path).sort(), log: log.join('\n') };
    };
    const inside = await plan(c.box);
    expect(inside.paths).toEqual([keys['loca2 ACCESS-CM2 tasmax']!, keys['loca2 HadGEM3-GC31-LL tasmax n_east']!].sort());
    expect(inside.log).toContain('LOCA2 HadGEM3-GC31-LL: CONUS_regions_split/n_east/ (its region covers the box)');
    expect(inside.log).toContain('LOCA2 ACCESS-CM2: NAmer/ (no CONUS_regions_split folder for the model)');
    // Manitoba: in LOCA2's domain, in no region of the conterminous US.
    const outside = await plan([-100.5, 50.5, -100.0, 51.0]);
    expect(outside.paths).toEqual([keys['loca2 ACCESS-CM2 tasmax']!, keys['loca2 HadGEM3-GC31-LL NAmer']!].sort());
    expect(outside.log).toContain('LOCA2 HadGEM3-GC31-LL: NAmer/ (no split region covers the box)');
  });

  it('the real CLI: DRY_RUN with the archive address from ARCHIVE_URL_LOCA2', async () => {
    const dir = copyOfTestData(tmpRoot, 'LOCA2-cli');
    const c = CASES[2]!;
    // Spawned, not spawnSync: the stand-in server answers from this process's event loop.
    const child = spawn(process.execPath, [compiled('src/cli/fetch.ts'), '--dataset=LOCA2', `--bbox=${c.box.join(',')}`, '--dry-run=1', '--models=', '--scenarios=', '--variables=', '--years=', '--via=', '--points=', '--range-cells='], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dir, ARCHIVE_URL_LOCA2: `${server.url}/LOCA2`, QUEUE_URL: '', DOWNLOAD_DIR: path.join(tmpRoot, 'LOCA2-dl-cli') },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const run = { status, stderr };
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(`plan: 4 files, ${mb(bytesOf(c.all()))} MB from LOCA2`);
    expect(run.stderr).toMatch(/HadGEM3-GC31-LL ssp585 r1i1p1f3: 1 files \(tasmax; 2075-2100; v20220413\)/);
    expect(run.stderr).toMatch(/ACCESS-CM2 ssp245 r1i1p1f1: 3 files \(pr, tasmax, tasmin; 2015-2044; v20240915, v20220413\)/);
  }, 120_000);
});
