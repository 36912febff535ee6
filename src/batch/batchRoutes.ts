import express, { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import { scenarioOr404 } from '../climate/location.js';
import { rawDataQuery } from '../climate/params.js';
import { datasetRanges } from '../reference/datasetContents.js';
import { rawColumns, rawDataPlan, rawHead, rawYearMembers, type RawDataPlan } from '../climate/rawDataPlan.js';
import { request, type ClimateDeps } from '../climate/routes.js';
import { safeFileName } from '../climate/tableLabels.js';
import { ServiceError } from '../errors.js';
import { HttpError, httpErrorOf } from '../http/errors.js';
import { EXTENSIONS, formatQuery, MEDIA_TYPES, negotiateFormat, type Format } from '../http/format.js';
import { queryFields } from '../http/queryParams.js';
import { dataJson, indicatorHead, indicatorRowsOfCells } from '../indicators/indicatorData.js';
import { indicatorPlan, type IndicatorPlan } from '../indicators/indicatorPlan.js';
import { MOST_CELLS, type PeriodStats } from '../indicators/query.js';
import { indicatorQuery } from '../indicators/params.js';
import { indicatorJson } from '../indicators/registry.js';
import type { Catalog } from '../reference/catalog.js';
import { distanceQuery } from '../reference/pointParams.js';
import { parseBatchBody } from './batchBody.js';
import { isResolved, resolvePlace, type PlaceError, type ResolvedPlace } from './batchPlaces.js';
import { IndicatorArrowBatch, indicatorCsvHeader, indicatorCsvRows, rawCsvHeader, rawCsvRows, RawArrowBatch, returnLevelBatchArrow, returnLevelBatchCsvHeader, returnLevelBatchCsvRows } from './batchTables.js';
import { returnLevelDataJson, returnLevelHead } from '../indicators/returnLevels/answer.js';
import type { ReturnLevelRows } from '../indicators/returnLevels/modelLevels.js';
import { returnLevelRowsOfCells } from '../indicators/returnLevels/rows.js';
import { openBodyStream, ClientGone } from './bodyStream.js';
import { cellsInOrder, failed, type CellOutcome } from './cellsInOrder.js';

export interface BatchDeps extends ClimateDeps {
  /** Counts a request as this many against the account's throttle (src/http/throttle.ts). */
  charge(req: Request, res: Response, units: number): Promise<void>;
  /** MAX_BATCH_LOCATIONS */
  maxLocations: number;
  /** BATCH_CELLS_PER_REQUEST: a batch counts as one request per this many distinct cells, rounded up. */
  cellsPerRequest: number;
  /** Groups of cells of one batch computed at once (the query pool's size: more would only queue). */
  concurrency: number;
}

export const NDJSON = 'application/x-ndjson';
/** 1,000 locations as {"lat": -12.345678, "lon": 123.456789} are about 40 KB. */
export const BATCH_BODY_LIMIT = '256kb';

type BatchFormat = Format | 'ndjson';

/**
 * The query parameters of the two batch endpoints: the single endpoints' at a point (`distance`
 * applies to the points of the body). The routes parse with these shapes and the OpenAPI operations
 * list them (src/api/batchOperations.ts).
 */
export function batchQueries(catalog: Catalog) {
  return {
    raw: { ...rawDataQuery(catalog), ...distanceQuery, ...formatQuery },
    indicator: { ...indicatorQuery(catalog), ...distanceQuery, ...formatQuery },
  };
}

/** `format` wins as on the single endpoints; without it, Accept may also ask for NDJSON. */
function batchFormat(req: Request): BatchFormat {
  if (req.query.format === undefined || req.query.format === '') {
    const best = req.accepts([MEDIA_TYPES.json, MEDIA_TYPES.csv, MEDIA_TYPES.arrow, NDJSON]);
    if (best === NDJSON) return 'ndjson';
  }
  return negotiateFormat(req);
}

/** What a batch computes per distinct cell and how it writes each place, in one output format. */
interface BatchKind<T> {
  head: string;
  /** The distinct cells in the groups that one call of compute answers. */
  group(distinct: number[]): number[][];
  compute(cellIds: number[]): Promise<CellOutcome<T>[]>;
  /** The `data` of one place, as the single endpoint prints it. */
  dataJson(value: T): string;
  csvHeader: string;
  csvRows(resolved: ResolvedPlace, value: T): string;
  arrow(): { add(resolved: ResolvedPlace, value: T): void; toIPC(): Uint8Array };
  fileStem: string;
}

/**
 * POST /api/climate-data/batch/{scenario}/ and /api/climate-data/batch/{scenario}/indicator/{name}/:
 * the single endpoints' answer for up to MAX_BATCH_LOCATIONS places in one request, each distinct
 * map cell computed once. Parameters are checked once for all places; a place without data gets an
 * error entry and the others their data.
 */
export function batchRoutes(deps: BatchDeps): Router {
  const { catalog, progress, queries, maxModelYears } = deps;
  const router = Router();
  const shapes = batchQueries(catalog);
  const indicatorFields = queryFields(shapes.indicator, { blankIsAbsent: true });
  const rawFields = queryFields(shapes.raw, { blankIsAbsent: true });
  const body = express.json({ limit: BATCH_BODY_LIMIT });
  const bodyErrors: ErrorRequestHandler = (err: unknown, _req, _res, next) => {
    if ((err as { type?: string }).type === 'entity.too.large') {
      next(new HttpError(413, `The request body is over ${BATCH_BODY_LIMIT.replace('kb', ' KB')}; ${deps.maxLocations} locations fit well within it.`));
    } else next(err);
  };

  const readyCell = (plan: { dataset: { name: string } }, cellId: number) => progress.requireCell(plan.dataset.name, cellId);

  /** Each cell's outcome: a 503 for a cell still being built, else what `rowsOf` answers for the ready cells (in one statement). */
  async function computeCells<T>(plan: IndicatorPlan, cellIds: number[], rowsOf: (ready: number[]) => Promise<(T | ServiceError)[]>): Promise<CellOutcome<T>[]> {
    const outcomes: (CellOutcome<T> | undefined)[] = cellIds.map(() => undefined);
    const ready = cellIds.filter((cellId, i) => {
      try {
        readyCell(plan, cellId);
        return true;
      } catch (err) {
        const answer = httpErrorOf(err);
        if (!answer) throw err;
        outcomes[i] = failed(answer);
        return false;
      }
    });
    const rows = await rowsOf(ready);
    let k = 0;
    return outcomes.map((outcome) => {
      if (outcome) return outcome;
      const r = rows[k++]!;
      return r instanceof ServiceError ? failed(httpErrorOf(r)) : { ok: true, value: r };
    });
  }

  function indicatorKind(plan: IndicatorPlan): BatchKind<PeriodStats[]> {
    return {
      head: indicatorHead(plan, indicatorJson(plan.meta, datasetRanges(catalog, plan.dataset))),
      // One statement per group of cells: binding a template is most of a cell's query. At warming
      // levels each cell is read from several files (its scenarios', its historical one), each
      // counting as a cell of the statement.
      group: (distinct) => queries.groups(distinct, Math.max(1, Math.floor(MOST_CELLS / (plan.warming?.files.length ?? 1)))),
      compute: (cellIds) => computeCells(plan, cellIds, (ready) => indicatorRowsOfCells(catalog, queries, plan, ready)),
      dataJson,
      csvHeader: indicatorCsvHeader(plan),
      csvRows: (resolved, rows) => indicatorCsvRows(plan, resolved, rows),
      arrow: () => new IndicatorArrowBatch(plan),
      fileStem: safeFileName(`climate-data_batch_${plan.scenario.name}_${plan.dataset.name}_${plan.meta.name}`),
    };
  }

  /** return_period or baseline_return_period: each place's data keyed by return period, with its models' notes after it. */
  function returnLevelKind(plan: IndicatorPlan): BatchKind<ReturnLevelRows> {
    return {
      head: returnLevelHead(plan, indicatorJson(plan.meta, datasetRanges(catalog, plan.dataset))),
      group: (distinct) => queries.groups(distinct, Math.max(1, Math.floor(MOST_CELLS / (plan.warming?.files.length ?? 1)))),
      compute: (cellIds) => computeCells(plan, cellIds, (ready) => returnLevelRowsOfCells(catalog, queries, plan, ready)),
      dataJson: returnLevelDataJson,
      csvHeader: returnLevelBatchCsvHeader(plan),
      csvRows: (resolved, rows) => returnLevelBatchCsvRows(plan, resolved, rows),
      arrow: () => returnLevelBatchArrow(plan),
      fileStem: safeFileName(`climate-data_batch_${plan.scenario.name}_${plan.dataset.name}_${plan.meta.name}_return_levels`),
    };
  }

  function rawKind(plan: RawDataPlan, format: BatchFormat): BatchKind<unknown> {
    const tables = format === 'csv' || format === 'arrow';
    const one = async (cellId: number): Promise<unknown> => {
      readyCell(plan, cellId);
      return tables ? rawColumns(catalog, queries, plan, cellId) : `{${(await rawYearMembers(catalog, queries, plan, cellId)).map((m) => m.text).join(',')}}`;
    };
    return {
      head: rawHead(plan),
      // A cell's raw data is a read of its precomputed summary, not a template to bind: one at a time.
      group: (distinct) => distinct.map((cellId) => [cellId]),
      compute: async ([cellId]) => {
        try {
          return [{ ok: true, value: await one(cellId!) }];
        } catch (err) {
          const answer = httpErrorOf(err);
          if (answer) return [failed(answer)];
          throw err;
        }
      },
      dataJson: (text) => text as string,
      csvHeader: rawCsvHeader(plan),
      csvRows: (resolved, cols) => rawCsvRows(plan, resolved, cols as Parameters<typeof rawCsvRows>[2]),
      arrow: () => {
        const table = new RawArrowBatch(plan);
        return { add: (resolved, cols) => table.add(resolved, cols as Parameters<RawArrowBatch['add']>[1]), toIPC: () => table.toIPC() };
      },
      fileStem: safeFileName(`climate-data_batch_${plan.scenario.name}_${plan.dataset.name}`),
    };
  }

  async function answer<T>(req: Request, res: Response, format: BatchFormat, dataset: string, places: (ResolvedPlace | PlaceError)[], kind: BatchKind<T>) {
    const cells = places.map((p) => (isResolved(p) ? p.location.cellId : undefined));
    // A cell still being built answers its places 503 and, as a single request's 503, costs nothing.
    const charged = new Set(cells.filter((c) => c !== undefined && progress.cellReady(dataset, c))).size;
    // Every batch counts at least once, even one whose places all lack data.
    await deps.charge(req, res, Math.max(1, Math.ceil(charged / deps.cellsPerRequest)));

    const outcomes = cellsInOrder(cells, kind.group, kind.compute, deps.concurrency);
    const entry = (p: ResolvedPlace | PlaceError, outcome: CellOutcome<T> | undefined) => {
      const location = JSON.stringify(p.place.given);
      if (!isResolved(p)) return `{"location":${location},"error":${JSON.stringify({ status: p.status, detail: p.detail })}}`;
      if (!outcome!.ok) return `{"location":${location},"error":${JSON.stringify({ status: outcome!.status, detail: outcome!.detail })}}`;
      return `{"location":${location},"map_cell":${p.mapCellJson},"data":${kind.dataJson(outcome!.value)}}`;
    };

    res.vary('Accept');
    if (format === 'arrow') {
      const table = kind.arrow();
      let i = 0;
      for await (const outcome of outcomes) {
        const p = places[i++]!;
        if (isResolved(p) && outcome?.ok) table.add(p, outcome.value);
      }
      const bytes = table.toIPC();
      res.type(MEDIA_TYPES.arrow).set('Content-Disposition', `attachment; filename="${kind.fileStem}.${EXTENSIONS.arrow}"`);
      res.send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      return;
    }

    if (format === 'csv') res.type(MEDIA_TYPES.csv).set('Content-Disposition', `attachment; filename="${kind.fileStem}.${EXTENSIONS.csv}"`);
    else res.type(format === 'ndjson' ? NDJSON : MEDIA_TYPES.json);
    const out = openBodyStream(res);
    try {
      if (format === 'csv') await out.write(kind.csvHeader);
      if (format === 'json') await out.write(`{${kind.head}"results":[`);
      let i = 0;
      for await (const outcome of outcomes) {
        const p = places[i]!;
        if (format === 'csv') {
          if (isResolved(p) && outcome?.ok) await out.write(kind.csvRows(p, outcome.value));
        } else if (format === 'ndjson') {
          await out.write(entry(p, outcome) + '\n');
          // Each line goes out as soon as it is computed, not when the compressor's buffer fills.
          await out.flush();
        } else {
          await out.write((i > 0 ? ',' : '') + entry(p, outcome));
        }
        i++;
      }
      if (format === 'json') await out.write(']}');
      await out.end();
    } catch (err) {
      if (err instanceof ClientGone) return;
      // The status line is gone: a cut-off body is the only way left to say the answer failed.
      res.locals.error = err;
      res.destroy();
    }
  }

  /** The checks before any work, in the single endpoints' order (place errors aside): path, dataset, body, format. */
  function start(req: Request) {
    const { query, params } = request(req);
    const scenario = scenarioOr404(catalog, params.scenario);
    const dataset = indicatorFields.dataset(query);
    const places = parseBatchBody(req.body, deps.maxLocations);
    const format = batchFormat(req);
    return { query, params, scenario, dataset, places, format };
  }

  router.post('/api/climate-data/batch/:scenario/indicator/:name/', body, bodyErrors, async (req: Request, res: Response) => {
    const { query, params, scenario, dataset, places, format } = start(req);
    const plan = indicatorPlan(catalog, indicatorFields, query, dataset, scenario, params.name, maxModelYears);
    const distance = indicatorFields.distance(query);
    const resolved = places.map((p) => resolvePlace(catalog, p, dataset, distance));
    if (plan.returnLevels) await answer(req, res, format, dataset.name, resolved, returnLevelKind(plan));
    else await answer(req, res, format, dataset.name, resolved, indicatorKind(plan));
  });

  router.post('/api/climate-data/batch/:scenario/', body, bodyErrors, async (req: Request, res: Response) => {
    const { query, scenario, dataset, places, format } = start(req);
    const plan = rawDataPlan(catalog, rawFields, query, dataset, scenario, maxModelYears);
    const distance = rawFields.distance(query);
    await answer(req, res, format, dataset.name, places.map((p) => resolvePlace(catalog, p, dataset, distance)), rawKind(plan, format));
  });

  return router;
}
