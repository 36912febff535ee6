import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** Repository root, so that commands work from any working directory. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const rate = z
  .string()
  .regex(/^\d+\/(sec|min|hour|day)$/, 'must look like N/sec, N/min, N/hour or N/day');

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default(path.join(ROOT, 'data', 'build')),
  ACCOUNTS_DB: z.string().default(path.join(ROOT, 'data', 'accounts.duckdb')),
  // The server writes its pid here (make run: .run/server.pid), for make reload.
  PID_FILE: z.string().min(1).optional(),
  /** Optional fixed signing secret; without it a random one is kept in the accounts store. */
  TOKEN_SECRET: z.string().min(32).optional(),
  /** The same, read from a file (a mounted secret); the file's text without a final newline. */
  TOKEN_SECRET_FILE: z.string().min(1).optional(),
  // Accounts in PostgreSQL, shared by every replica (src/auth/postgresAccountStore.ts); ACCOUNTS_DB without it.
  ACCOUNTS_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  /**
   * Token lifetime: seconds, or a number with s, m, h or d (`30d`). Unset: tokens do not expire, as
   * the original's did not; an expired token gets a 401 that says so.
   */
  TOKEN_TTL: z
    .string()
    .regex(/^[1-9]\d*[smhd]?$/, 'must be a positive number of seconds, or a number with s, m, h or d (30d)')
    .transform((v) => Number.parseInt(v, 10) * { s: 1, m: 60, h: 3600, d: 86_400 }[/[smhd]$/.test(v) ? (v.slice(-1) as 's') : 's'])
    .optional(),
  TOKEN_AUTH_RATE: rate.default('5/min'),
  THROTTLE_BURST_RATE: rate.default('20/min'),
  THROTTLE_SUSTAINED_RATE: rate.default('5000/day'),
  // Throttle counters shared by every replica (src/http/throttleStore.ts); in memory without it.
  THROTTLE_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((v) => (v === 'true' ? true : v === 'false' ? false : Number.isNaN(Number(v)) ? v : Number(v))),
  /**
   * Threads per DuckDB query. The service's queries are small (binding them costs more than
   * scanning), so it runs several single-threaded queries at once rather than one on every core:
   * on 2 cores, 1 thread x 4 queries served frost_days at 139-208 req/s, 2 x 3 at 105-127 (make bench).
   */
  DUCKDB_THREADS: z.coerce.number().int().min(1).default(1),
  DUCKDB_MEMORY_LIMIT: z.string().default('1GB'),
  /** Climate queries allowed to run at once (default twice the cores); the rest wait in a queue. */
  QUERY_CONCURRENCY: z.coerce.number().int().min(1).default(2 * Math.max(1, os.availableParallelism())),
  QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** Largest request: years x models (one cell); past it a climate request is a 400. */
  MAX_MODEL_YEARS: z.coerce.number().int().min(1).default(4_000),
  /** Most locations in one batch request (POST /api/climate-data/batch/...); more is a 400. */
  MAX_BATCH_LOCATIONS: z.coerce.number().int().min(1).default(1000),
  /** A batch counts against the throttle as one request per this many distinct map cells, rounded up. */
  BATCH_CELLS_PER_REQUEST: z.coerce.number().int().min(1).default(10),
  /** Most vertices of a POSTed area (GeoJSON polygon); more is a 400. */
  MAX_AREA_VERTICES: z.coerce.number().int().min(4).default(10_000),
  /** Most map cells with data in one area request; each costs one cell's query, so more is a 400. */
  MAX_AREA_CELLS: z.coerce.number().int().min(1).default(200),
  /**
   * Most map cells whose values a map may compute from the days (an indicator's non-default
   * parameters, which no summary holds); past it a 400 points to exports.
   */
  MAP_MAX_DAY_CELLS: z.coerce.number().int().min(1).default(200),
  /**
   * Most cells of any map. Each cell's values are computed from its monthly summaries (one file a
   * cell): 1,251 cells took 0.85 s and 18,751 cells 28-58 s on 2 cores (docs/benchmarks.md, Maps),
   * so past this a 400 says the limit and points to exports.
   */
  MAP_MAX_CELLS: z.coerce.number().int().min(1).default(2_000),
  /** pino level of the JSON request log and server messages; `silent` turns logging off. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `off` drops the request and query metrics and GET /metrics (the bench measures their cost). */
  METRICS: z.enum(['on', 'off']).default('on'),
  /** When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>` (or `Token <METRICS_TOKEN>`). */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** On SIGTERM/SIGINT, how long in-flight requests get to finish before the process exits anyway. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  /**
   * `on` (what `make run` sets): when DATA_DIR has no complete build, build the default data into
   * it in a child process while serving, resuming an interrupted one. Off by default, so that a
   * mistyped DATA_DIR fails instead of filling a folder with synthetic data.
   */
  DATA_AUTOBUILD: z.enum(['on', 'off']).default('off'),
  /** The default data: how many of the most populous cities get climate data, and the generator's seed. */
  DATA_CITIES: z.coerce.number().int().min(0).default(50),
  DATA_SEED: z.coerce.number().int().min(0).max(2 ** 31 - 1).default(1),
  /** `make data` and DATA_AUTOBUILD: most populous cities whose boundary's NEX-GDDP cells all get climate data (areas). */
  DATA_AREA_CITIES: z.coerce.number().int().min(0).default(3),
  /** `make data` and DATA_AUTOBUILD: most populous cities (at most DATA_CITIES) that also get CMIP6 data (NEX-GDDP-CMIP6, LOCA2), built after the CMIP5 cells. */
  DATA_CMIP6_CITIES: z.coerce.number().int().min(0).default(10),
  /** `make data` and DATA_AUTOBUILD: of those, the most populous ones whose boundary's NEX-GDDP-CMIP6 cells all get data (areas). */
  DATA_CMIP6_AREA_CITIES: z.coerce.number().int().min(0).default(1),
  /** make ingest-enqueue, ingest-worker and ingest-status: the Redis holding the ingest's task queue (BullMQ). Empty counts as unset. */
  QUEUE_URL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').optional(),
  ),
  /** make ingest-worker: 1 ends the worker once no task of any ingest job is left (waiting, running or planned). */
  EXIT_WHEN_IDLE: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['0', '1']).default('0')).transform((v) => v === '1'),
  /**
   * make ingest-worker: how long a task stays a worker's without the worker renewing it (it renews
   * every half of this). A task of a worker that died is handed to another after one to two times this.
   */
  INGEST_LOCK_MS: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1000).default(60_000)),
  /** Export jobs (src/export/): where their records and files live; replicas and export workers must share it. */
  EXPORT_DIR: z.string().default(path.join(ROOT, 'data', 'exports')),
  /** Most values (models x places or cells x days or periods x variables x scenarios) in one export; more is a 400. */
  EXPORT_MAX_VALUES: z.coerce.number().int().min(1).default(2_000_000_000),
  /**
   * The V8 heap, in MB, of the process an export runs in (a child of the server or of make
   * export-worker): an export's memory does not grow with its size, so this bounds what one can take.
   */
  EXPORT_RUNNER_HEAP_MB: z.coerce.number().int().min(32).default(256),
  /** DuckDB threads of the export runner (it runs at a lower CPU priority than the requests). */
  EXPORT_THREADS: z.coerce.number().int().min(1).default(2),
  /** Exports queued or running at once per account; one more is a 429 with Retry-After. */
  EXPORT_MAX_RUNNING: z.coerce.number().int().min(1).default(2),
  /** Bytes of export files an account may keep; past it a new export is a 409 until some are deleted or expire. */
  EXPORT_MAX_BYTES: z.coerce.number().int().min(1).default(5_000_000_000),
  /** How long an export's files are kept: seconds, or a number with s, m, h or d (default 7d). */
  EXPORT_TTL: z
    .string()
    .regex(/^[1-9]\d*[smhd]?$/, 'must be a positive number of seconds, or a number with s, m, h or d (7d)')
    .default('7d')
    .transform((v) => Number.parseInt(v, 10) * { s: 1, m: 60, h: 3600, d: 86_400 }[/[smhd]$/.test(v) ? (v.slice(-1) as 's') : 's']),
  /** make export-worker and the server with QUEUE_URL: how long an export task stays a worker's without a renewal; a killed worker's task is retried after one to two of these. */
  EXPORT_LOCK_MS: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1000).default(60_000)),
  /**
   * make fetch (src/ingest/archive/): each publisher's base URL, below which the paths are the publisher's
   * own; the defaults are the real public addresses, a mirror, a proxy or a test server stands in.
   */
  ARCHIVE_URL_NEX_GDDP_CMIP6: z.string().url().default('https://nex-gddp-cmip6.s3.us-west-2.amazonaws.com'),
  /** NEX-GDDP (CMIP5): the nasanex bucket, its JSON index at NEX-GDDP/nex-gddp-s3-files.json. */
  ARCHIVE_URL_NEX_GDDP: z.string().url().default('https://nasanex.s3.amazonaws.com'),
  /** LOCA (CMIP5): the same bucket, its JSON index at LOCA/loca-s3-files.json. */
  ARCHIVE_URL_LOCA: z.string().url().default('https://nasanex.s3.amazonaws.com'),
  /** LOCA2: Scripps's web folders (NAmer/, CONUS_regions_split/), crawled page by page. */
  ARCHIVE_URL_LOCA2: z.string().url().default('https://cirrus.ucsd.edu/~pierce/LOCA2'),
  /** make fetch VIA=ncss: NASA NCCS THREDDS's NetCDF Subset Service for NEX-GDDP-CMIP6 (the files still come from the S3 listing). */
  NCSS_URL_NEX_GDDP_CMIP6: z.string().url().default('https://ds.nccs.nasa.gov/thredds/ncss/grid/AMES/NEX/GDDP-CMIP6'),
  /** make fetch: downloads at once per host (the publishers' servers are shared by everyone). */
  FETCH_CONCURRENCY: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1).max(64).default(4)),
  /** make fetch: 1 keeps each downloaded file after its values are staged (default: deleted, so disk stays bounded). */
  KEEP_DOWNLOADS: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['0', '1']).default('0')).transform((v) => v === '1'),
  /** make fetch: where files are downloaded to (a few at a time); default `downloads/` beside DATA_DIR. */
  DOWNLOAD_DIR: z.preprocess((v) => (v === '' ? undefined : v), z.string().optional()),
  /** make fetch DRY_RUN=1: the download rate (MB/s) the plan's time assumes when no fetch into this build has measured one. */
  FETCH_RATE_MBPS: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().positive().default(20)),
  /** max-age of the private Cache-Control on /api/ responses (the original's 30 days). */
  CACHE_MAX_AGE: z.coerce.number().int().min(0).default(2_592_000),
});

export type Config = z.infer<typeof envSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  const fail = (lines: string[]): never => {
    throw new Error(`Invalid environment configuration:\n${lines.join('\n')}\nSee docs/configuration.md.`);
  };
  if (!parsed.success) fail(parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`));
  const config = parsed.data!;
  if (config.TOKEN_SECRET_FILE !== undefined) {
    if (config.TOKEN_SECRET !== undefined) fail(['  TOKEN_SECRET_FILE: set either TOKEN_SECRET or TOKEN_SECRET_FILE, not both']);
    let secret = '';
    try {
      secret = fs.readFileSync(config.TOKEN_SECRET_FILE, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      fail([`  TOKEN_SECRET_FILE: cannot read ${config.TOKEN_SECRET_FILE} (${(err as NodeJS.ErrnoException).code ?? String(err)})`]);
    }
    if (secret.length < 32) fail([`  TOKEN_SECRET_FILE: ${config.TOKEN_SECRET_FILE} must hold at least 32 characters, it has ${secret.length}`]);
    config.TOKEN_SECRET = secret;
  }
  // Every replica must sign and check tokens with the same secret; the embedded store keeps one in
  // its file, the shared store does not.
  if (config.ACCOUNTS_URL !== undefined && config.TOKEN_SECRET === undefined) {
    fail(['  ACCOUNTS_URL: set TOKEN_SECRET or TOKEN_SECRET_FILE too, the same on every replica (the token signing secret, 32 characters or more)']);
  }
  return config;
}

/**
 * `make user`'s EMAIL and PASSWORD (its --email and --password take precedence). Empty counts as
 * unset: make passes both whether they were given or not.
 */
export function accountCommandEnv(env: NodeJS.ProcessEnv = process.env): { email?: string; password?: string } {
  const given = (v: string | undefined) => (v === '' ? undefined : v);
  return { email: given(env.EMAIL), password: given(env.PASSWORD) };
}

/** "20/min" -> { limit: 20, windowMs: 60000 } */
export function parseRate(value: string): { limit: number; windowMs: number } {
  const m = /^(\d+)\/(sec|min|hour|day)$/.exec(value);
  if (!m) throw new Error(`Bad rate "${value}": use N/sec, N/min, N/hour or N/day`);
  const unit = { sec: 1_000, min: 60_000, hour: 3_600_000, day: 86_400_000 }[m[2] as 'sec' | 'min' | 'hour' | 'day'];
  return { limit: Number(m[1]), windowMs: unit };
}
