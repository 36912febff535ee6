import express, { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import { CoverThread } from '../areas/coverThread.js';
import type { BuildProgress } from '../climate/buildProgress.js';
import { NotFoundError } from '../errors.js';
import type { AuthenticatedAccount } from '../http/account.js';
import { stopCollecting } from '../http/compress.js';
import { HttpError } from '../http/errors.js';
import type { QueryPool } from '../db/queryPool.js';
import type { Catalog } from '../reference/catalog.js';
import type { ExportScheduler } from './exportJobs.js';
import { exportFileName, planExport } from './exportPlan.js';
import { parseExportBody } from './exportRequest.js';
import type { ExportJob, ExportStore } from './exportStore.js';
import { newExportId } from './exportStore.js';

export interface ExportLimits {
  maxValues: number;
  maxRunning: number;
  maxBytes: number;
  /** Seconds a job and its files are kept. */
  ttl: number;
  maxAreaVertices: number;
  clipTimeoutMs: number;
}

export interface ExportDeps {
  catalog: Catalog;
  queries: QueryPool;
  progress: BuildProgress;
  store: ExportStore;
  scheduler: ExportScheduler;
  limits: ExportLimits;
}

/** A body with a detailed polygon is large; 4 MB as the area endpoints take. */
export const EXPORT_BODY_LIMIT = '4mb';
/** What a client at EXPORT_MAX_RUNNING is told to wait before asking again. */
export const RUNNING_RETRY_AFTER_S = 30;

const MEDIA = { nc: 'application/x-netcdf', parquet: 'application/vnd.apache.parquet', csv: 'text/csv' } as Record<string, string>;

/** The job as the API shows it. */
export function exportJson(job: ExportJob) {
  const url = `/api/export/${job.id}/`;
  return {
    id: job.id,
    status: job.status,
    progress: job.progress,
    url,
    request: job.request,
    values: job.plan.values,
    // What the request asked for that the files do not hold, and why (absent when nothing).
    ...(job.plan.skipped ? { skipped: job.plan.skipped } : {}),
    ...(job.plan.modelsLeftOut ? { models_left_out: job.plan.modelsLeftOut } : {}),
    // Each file's dataset and scenario, which a CSV's rows do not repeat: found by its name.
    files: job.files.map((f) => ({
      name: f.name,
      url: `${url}files/${encodeURIComponent(f.name)}/`,
      bytes: f.bytes,
      sha256: f.sha256,
      dataset: job.plan.dataset,
      scenario: job.plan.scenarios.find((s) => exportFileName(job.plan, s.name) === f.name)?.name ?? null,
    })),
    created_at: job.created_at,
    expires_at: job.expires_at,
    error: job.error,
  };
}

const accountOf = (res: Response) => (res.locals.account as AuthenticatedAccount).id;
const keptBytes = (jobs: ExportJob[]) => jobs.reduce((n, j) => n + j.files.reduce((m, f) => m + f.bytes, 0), 0);

/**
 * POST /api/export/ (a job), GET /api/export/ (the account's), GET and DELETE /api/export/{id}/,
 * and GET /api/export/{id}/files/{name}/ (a file, with ETag and Range). An export is its account's:
 * any other token gets 404, as for an export that does not exist.
 */
export function exportRoutes(deps: ExportDeps): Router {
  const { store, limits } = deps;
  const router = Router();
  const clipper = new CoverThread(limits.clipTimeoutMs);
  const body = express.json({ limit: EXPORT_BODY_LIMIT });
  const bodyErrors: ErrorRequestHandler = (err: unknown, _req, _res, next) => {
    if ((err as { type?: string }).type === 'entity.too.large') next(new HttpError(413, `The request body is over ${EXPORT_BODY_LIMIT.replace('mb', ' MB')}.`));
    else next(err);
  };

  /** The account's job, or the 404 any other account gets. */
  const ownJob = (req: Request, res: Response): ExportJob => {
    const job = store.get(String(req.params.id));
    if (!job || job.account !== accountOf(res) || Date.parse(job.expires_at) <= Date.now()) throw new NotFoundError(`Export ${String(req.params.id)} does not exist.`);
    return job;
  };

  router.post('/api/export/', body, bodyErrors, async (req: Request, res: Response) => {
    const parsed = parseExportBody(req.body);
    const account = accountOf(res);
    // Checked before the plan, to refuse early, and again with the claim, which is what holds.
    const checkRoom = () => {
      store.removeExpired();
      const mine = store.ofAccount(account);
      const running = mine.filter((j) => j.status === 'queued' || j.status === 'running').length;
      if (running >= limits.maxRunning) {
        const detail = `This account has ${running} exports queued or running; the limit is ${limits.maxRunning} (EXPORT_MAX_RUNNING). Try again when one is done (GET /api/export/).`;
        throw new HttpError(429, detail, { detail }, { 'Retry-After': String(RUNNING_RETRY_AFTER_S) });
      }
      const kept = keptBytes(mine);
      if (kept >= limits.maxBytes) {
        throw new HttpError(409, `This account keeps ${kept.toLocaleString('en-US')} bytes of exports; the limit is ${limits.maxBytes.toLocaleString('en-US')} (EXPORT_MAX_BYTES). Delete some (DELETE /api/export/{id}/) or wait until they expire.`);
      }
    };
    checkRoom();
    const plan = await planExport({ catalog: deps.catalog, progress: deps.progress, queries: deps.queries, clipper, maxAreaVertices: limits.maxAreaVertices, maxValues: limits.maxValues }, parsed);
    const job = await deps.scheduler.claims.exclusive(account, () => {
      checkRoom();
      const now = Date.now();
      const created: ExportJob = {
        id: newExportId(),
        account,
        status: 'queued',
        progress: 0,
        request: parsed,
        plan,
        files: [],
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + limits.ttl * 1000).toISOString(),
        error: null,
      };
      store.create(created);
      return created;
    });
    try {
      await deps.scheduler.enqueue(job.id);
    } catch (err) {
      // Not accepted, so not kept: the client is told and may ask again.
      store.remove(job.id);
      throw err;
    }
    const url = `/api/export/${job.id}/`;
    res.status(202).location(url).json({ id: job.id, status: job.status, url });
  });

  router.get('/api/export/', (_req: Request, res: Response) => {
    store.removeExpired();
    res.json({ results: store.ofAccount(accountOf(res)).map(exportJson) });
  });

  router.get('/api/export/:id/', (req: Request, res: Response) => {
    res.json(exportJson(ownJob(req, res)));
  });

  router.delete('/api/export/:id/', (req: Request, res: Response) => {
    const job = ownJob(req, res);
    if (job.status === 'queued' || job.status === 'running') store.cancel(job.id);
    else store.remove(job.id);
    res.status(204).end();
  });

  router.get('/api/export/:id/files/:name/', (req: Request, res: Response, next) => {
    const job = ownJob(req, res);
    const file = job.files.find((f) => f.name === req.params.name);
    if (!file) throw new NotFoundError(`Export ${job.id} has no file ${String(req.params.name)}.`);
    const ext = file.name.slice(file.name.lastIndexOf('.') + 1);
    // The file is sent as it is on disk (Range needs its bytes), not collected and compressed.
    stopCollecting(res);
    res.sendFile(
      store.filePath(job.id, file.name),
      {
        etag: false,
        acceptRanges: true,
        cacheControl: false,
        headers: {
          // The content hash: the same bytes have the same tag wherever they are served from.
          ETag: `"${file.sha256}"`,
          'Cache-Control': 'private, max-age=0, must-revalidate',
          'Content-Type': MEDIA[ext] ?? 'application/octet-stream',
          'Content-Disposition': `attachment; filename="${file.name}"`,
        },
      },
      (err) => {
        if (err && !res.headersSent) next(new NotFoundError(`Export ${job.id} has no file ${file.name} any more.`));
      },
    );
  });

  return router;
}
