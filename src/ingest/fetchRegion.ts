import path from 'node:path';
import { DownloadsAhead, duration, FetchProgress } from './archive/downloadsAhead.js';
import { HostSlots } from './archive/hostSlots.js';
import { boxOf } from './archive/ncss.js';
import { FetchError } from './archive/fetchError.js';
import type { ArchiveFile, Selection } from './archive/publisher.js';
import { DEFAULT_POLICY, type RetryPolicy } from './archive/retries.js';
import { DATASETS, type DatasetFixture } from '../reference/fixtures.js';
import { CORE_VARIABLES, datasetVariables } from '../reference/datasetVariables.js';
import { archiveUrlOf, publisherFor, type ArchiveUrls } from './fetchPublishers.js';
import type { Bbox } from './netcdf/cellSelection.js';
import { ingestNetcdf, IngestError, type IngestSummary } from './netcdf/ingest.js';
import { readFetchRecord, recordFile, writeFetchRecord, type FetchedFile, type FetchedRegion, type FetchRecord } from './fetchRecord.js';
import { splitHeld } from './heldByBuild.js';
import { GRIDS } from '../reference/grids.js';

/** What make fetch asks: a dataset, a region, and optionally fewer models, scenarios, variables and years than the dataset has. */
export interface FetchOptions {
  dataDir: string;
  dataset: string;
  bbox?: Bbox;
  points?: { lat: number; lon: number }[];
  models?: string[];
  scenarios?: string[];
  variables?: string[];
  years?: [number, number];
  rangeCells?: number;
  dryRun?: boolean;
  /** Publishers' base URLs and the download settings (src/config.ts). */
  archiveUrls: ArchiveUrls;
  /** s3 (default): whole files from the bucket; ncss: each file's subset over the box from NCSS_URL_NEX_GDDP_CMIP6 (src/ingest/archive/ncss.ts). */
  via?: 's3' | 'ncss';
  ncssUrl?: string;
  concurrency: number;
  keepDownloads: boolean;
  downloadDir: string;
  /** The rate a dry run's time assumes when no fetch into this build measured one (MB/s). */
  statedRateMbps: number;
  retry?: Partial<Omit<RetryPolicy, 'log'>>;
  log?: (line: string) => void;
  /** FORCE=1: fetch every file of the selection, whatever the build's record says it holds. */
  force?: boolean;
  /** Enqueue the fetch on the ingest queue instead (its map tasks download their own file); DATA_DIR must be a symlink to a build. */
  queueUrl?: string;
}

export interface FetchResult {
  /** The files this fetch downloads (or, with dryRun, would). */
  files: ArchiveFile[];
  /** Files of the selection the build already holds for the region: not fetched. */
  held: ArchiveFile[];
  bytes: number;
  ingest?: IngestSummary;
  megabytesPerSecond?: number;
  /** With queueUrl: the job enqueued. */
  job?: string;
}

/** The selection a fetch's arguments make of the dataset, checked against the service's catalog. */
export function selectionOf(fixture: DatasetFixture, opts: Pick<FetchOptions, 'models' | 'scenarios' | 'variables' | 'years'>): Selection {
  const unknown = (what: string, got: string[], known: string[]) => {
    const bad = got.filter((g) => !known.includes(g));
    if (bad.length > 0) throw new IngestError(`${what}: ${bad.join(', ')} ${bad.length === 1 ? 'is' : 'are'} not among ${fixture.name}'s ${known.join(', ')}`);
  };
  const models = opts.models ?? fixture.models;
  unknown('MODELS', models, fixture.models);
  const scenarios = opts.scenarios ?? Object.keys(fixture.years);
  unknown('SCENARIOS', scenarios, Object.keys(fixture.years));
  // By default the variables every dataset has; NEX-GDDP-CMIP6's tas, hurs and huss when asked for.
  const variables = opts.variables ?? [...CORE_VARIABLES];
  unknown('VARIABLES', variables, [...datasetVariables(fixture.name)]);
  const spans = Object.values(fixture.years);
  const years = opts.years ?? [Math.min(...spans.map((s) => s[0])), Math.max(...spans.map((s) => s[1]))];
  const runs = fixture.runs
    .filter((r) => models.includes(r.model))
    .map((r) => ({ model: r.model, member: r.member ?? '', scenarios: r.scenarios.filter((s) => scenarios.includes(s) && fixture.years[s]![0] <= years[1] && fixture.years[s]![1] >= years[0]) }))
    .filter((r) => r.scenarios.length > 0);
  if (runs.length === 0) throw new IngestError(`no model of ${fixture.name} has ${scenarios.join(', ')} in ${years.join('-')}: nothing to fetch`);
  return { runs, variables, years };
}

const mb = (bytes: number) => (bytes / 1e6).toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });

/**
 * make fetch: lists the publisher's files of the selection (its own index: exact member, grid label,
 * newest version), then runs the ingest's map and reduce over them with each file downloaded a few
 * ahead of the map step and deleted once staged; records per file its URL, bytes, md5 and version
 * in the build. With dryRun, prints the plan and downloads nothing.
 */
export async function fetchRegion(opts: FetchOptions): Promise<FetchResult> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const fixture = DATASETS.find((d) => d.name === opts.dataset);
  if (!fixture) throw new IngestError(`DATASET must be one of ${DATASETS.map((d) => d.name).join(', ')}; got '${opts.dataset}'`);
  if (!opts.bbox && (opts.points ?? []).length === 0) throw new IngestError('BBOX (west,south,east,north) or POINTS ("lat,lon;lat,lon") is required: make fetch downloads a region, never the whole archive');
  const slots = new HostSlots(opts.concurrency);
  const policy: RetryPolicy = { ...DEFAULT_POLICY, ...opts.retry, log };
  let progress: FetchProgress | undefined;
  const stopped = new AbortController();
  const engine = { slots, policy, onBytes: (n: number) => progress?.onBytes(n), signal: stopped.signal };
  const publisher = publisherFor(fixture, opts.archiveUrls, engine, opts);
  const selection = { ...selectionOf(fixture, opts), bbox: opts.bbox ?? boxOf(undefined, opts.points!) };
  log(`listing ${opts.dataset}: ${selection.runs.length} models, ${selection.variables.join(', ')}, ${selection.years.join('-')}, from ${archiveUrlOf(opts.dataset, opts.archiveUrls)}${opts.via === 'ncss' ? `; subsets of the box from NCSS at ${opts.ncssUrl}` : ''}`);
  const listed = await publisher.list(selection, log);
  if (listed.length === 0) throw new IngestError(`the ${opts.dataset} archive has no file of the selection: nothing to fetch`);
  const split = opts.force ? { todo: listed, held: [], replaced: [] } : splitHeld(listed, readFetchRecord(opts.dataDir, opts.dataset), GRIDS[opts.dataset]!, regionOf(opts));
  const { todo: files, held } = split;
  if (opts.force) log(`FORCE=1: fetching all ${listed.length} files of the selection again, whatever the build's record says it holds`);
  for (const r of split.replaced.slice(0, 5)) {
    const left = r.cellsLeft > 0 ? `; ${r.cellsLeft} cells the build holds of it lie outside this BBOX/POINTS and keep the old values until a fetch asks for them` : '';
    log(`replacing ${r.file.path}: ${r.why}${left}`);
  }
  if (split.replaced.length > 5) log(`... and ${split.replaced.length - 5} more files replaced at the publisher`);
  if (files.length === 0) {
    log(`nothing to fetch: the build in ${opts.dataDir} already holds all ${listed.length} files of the selection for these cells (the same path, version, size and md5 as the publisher lists now); FORCE=1 fetches them again`);
    return { files, held, bytes: 0 };
  }
  if (held.length > 0) log(`the build already holds ${held.length} of the ${listed.length} files of the selection for these cells: fetching the other ${files.length} (FORCE=1 fetches all)`);
  // An NCSS subset has no listed size: its estimate (box cells x days x 4 bytes) stands in.
  const sizeOf = (f: ArchiveFile) => f.bytes ?? f.estimatedBytes ?? 0;
  const bytes = files.reduce((n, f) => n + sizeOf(f), 0);
  const unsized = files.filter((f) => f.bytes === undefined && f.estimatedBytes === undefined).length;
  const estimated = files.some((f) => f.bytes === undefined && f.estimatedBytes !== undefined);

  if (opts.dryRun) {
    const measured = readFetchRecord(opts.dataDir, opts.dataset)?.measured_mb_per_s ?? null;
    const rate = measured ?? opts.statedRateMbps;
    const byRun = new Map<string, ArchiveFile[]>();
    for (const f of files) byRun.set(`${f.model} ${f.scenario} ${f.member}`, [...(byRun.get(`${f.model} ${f.scenario} ${f.member}`) ?? []), f]);
    const lines = [`plan: ${files.length} files, ${estimated ? 'about ' : ''}${mb(bytes)} MB${unsized > 0 ? ` (and ${unsized} files of unlisted size)` : ''} from ${opts.dataset}${opts.via === 'ncss' ? ' as NCSS subsets of the box' : ''}`];
    for (const [run, fs_] of byRun) {
      const versions = [...new Set(fs_.map((f) => f.version))].join(', ');
      const years = fs_.flatMap((f) => f.years);
      lines.push(`  ${run}: ${fs_.length} files (${[...new Set(fs_.map((f) => f.variable))].join(', ')}; ${Math.min(...years)}-${Math.max(...years)}; ${versions}), ${mb(fs_.reduce((n, f) => n + sizeOf(f), 0))} MB`);
    }
    const checked = files.filter((f) => f.md5).length;
    lines.push(
      opts.via === 'ncss'
        ? `  each subset is checked as NetCDF (the publisher's md5 is of whole files); first request: ${files[0]!.url}`
        : checked > 0
          ? `  md5 from the publisher's index for ${checked} of ${files.length} files; the others are checked as NetCDF only`
          : `  the publisher gives no md5 for these files: each is checked for its size and as NetCDF`,
    );
    lines.push(
      `expected time: ${duration(bytes / 1e6 / rate)} to download and stage at ${rate.toPrecision(3)} MB/s ` +
        `(${measured !== null ? 'measured by the last fetch into this build' : `the stated rate FETCH_RATE_MBPS=${opts.statedRateMbps}; no fetch into this build has measured one`}), ` +
        `${opts.concurrency} downloads at a time, then the reduce (writing the partitions). Nothing was downloaded (DRY_RUN=1).`,
    );
    for (const l of lines) log(l);
    return { files, held, bytes };
  }

  // The ingest's view of the files: named by URL, as the publisher sizes them.
  const keys = files.map((f) => ({ path: f.url, size: f.bytes ?? 0, mtime: 0 }));
  const ingestOpts = {
    dataDir: opts.dataDir,
    dataset: opts.dataset,
    sources: [],
    ...(opts.points ? { points: opts.points } : {}),
    ...(opts.bbox ? { bbox: opts.bbox } : {}),
    ...(opts.rangeCells ? { rangeCells: opts.rangeCells } : {}),
    log,
  };
  if (opts.queueUrl) {
    // BullMQ only for a queued fetch (0.4 s of CPU at the start of every make fetch otherwise).
    const { enqueueIngest } = await import('./queue/enqueue.js');
    const r = await enqueueIngest({
      ...ingestOpts,
      queueUrl: opts.queueUrl,
      remoteKeys: keys,
      fetch: {
        via: opts.via ?? 's3',
        archiveUrl: archiveUrlOf(opts.dataset, opts.archiveUrls),
        ...(opts.ncssUrl ? { ncssUrl: opts.ncssUrl } : {}),
        archive: archiveOf(opts),
        ...(opts.bbox ? { bbox: opts.bbox } : {}),
        ...(opts.points ? { points: opts.points } : {}),
        downloadDir: path.resolve(opts.downloadDir),
        keepDownloads: opts.keepDownloads,
        concurrency: opts.concurrency,
        files,
      },
    });
    log(`enqueued ${r.files} map tasks (each downloads, checks and stages its file) for ${r.cells} target cells in ${r.ranges} ranges; the job's folder is ${r.folder}, its build will be ${r.next}`);
    log(`work it with: make ingest-worker QUEUE_URL=${opts.queueUrl} (as many as you like, on machines that see DATA_DIR and DOWNLOAD_DIR); follow it with: make ingest-status QUEUE_URL=${opts.queueUrl} JOB=${r.job}`);
    return { files, held, bytes, job: r.job };
  }

  const byUrl = new Map(files.map((f) => [f.url, f]));
  progress = new FetchProgress(files.length, bytes, log);
  const ahead = new DownloadsAhead(byUrl, publisher, opts.downloadDir, opts.concurrency, opts.keepDownloads);
  const earlier = new Set<string>();
  // A failed run returns once its other downloads have stopped (their .part kept for the next run).
  const ingest = await ingestNetcdf({
    ...ingestOpts,
    remote: {
      keys,
      start: (urls) => ahead.start(urls),
      local: (url) => ahead.local(url),
      staged: (url, values, before) => {
        if (before) {
          earlier.add(url);
          progress!.skip(byUrl.get(url)!.bytes ?? 0);
        } else {
          ahead.staged(url);
          progress!.staged(values);
        }
      },
      stop: () => {
        ahead.stop();
        stopped.abort();
      },
      // Before the manifest that publishes the build: a build never names files its record lacks.
      publishing: () => writeRecord(opts, files, ahead.done, ahead.done.size > 0 ? progress!.megabytesPerSecond : undefined),
    },
  }).catch(async (err: unknown) => {
    await ahead.settled();
    throw err;
  });
  const rate = progress.megabytesPerSecond;
  log(progress.line());
  if (earlier.size > 0) log(`${earlier.size} files were staged by an earlier, interrupted run: not downloaded again`);
  return { files, held, bytes, ingest, megabytesPerSecond: rate };
}

const archiveOf = (opts: Pick<FetchOptions, 'dataset' | 'via' | 'ncssUrl' | 'archiveUrls'>) =>
  opts.via === 'ncss' ? `${opts.ncssUrl} (files listed by ${archiveUrlOf(opts.dataset, opts.archiveUrls)})` : archiveUrlOf(opts.dataset, opts.archiveUrls);

function writeRecord(opts: FetchOptions, files: ArchiveFile[], done: Map<string, { bytes: number; md5: string; checked: boolean }>, rate: number | undefined) {
  writeFetchRecord(opts.dataDir, opts.dataset, archiveOf(opts), files, done, rate, regionOf(opts), opts.via === 'ncss');
}

/** What the fetch asks of each file, as the record keeps it: the box, the points, and the cities when files come whole. */
export const regionOf = (opts: Pick<FetchOptions, 'bbox' | 'points' | 'via'>): FetchedRegion => ({
  ...(opts.bbox ? { bbox: opts.bbox } : {}),
  ...((opts.points ?? []).length > 0 ? { points: opts.points } : {}),
  cities: opts.via !== 'ncss',
});

export { FetchError, recordFile, type FetchRecord, type FetchedFile };
