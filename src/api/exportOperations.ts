import { z } from 'zod';
import { exportBody } from '../export/exportRequest.js';
import { EXPORT_STATUSES } from '../export/exportStore.js';
import { wireType } from '../http/queryParams.js';
import { json, type Operation } from './operation.js';
import { errorBody } from './responseShapes.js';

/** The OpenAPI description of the export operations; openapi.ts lists them with the others. */

const exportId = z.string().meta({ description: 'The export id (`exp-` and 24 hex digits), as POST /api/export/ answered it.' });
const fileName = z.string().meta({ description: "A file's name, as the export's `files` list it." });

const accepted = z.strictObject({ id: z.string(), status: z.literal('queued'), url: z.string() }).meta({ id: 'ExportAccepted' });

export const exportStatus = z
  .strictObject({
    id: z.string(),
    status: z.enum(EXPORT_STATUSES),
    progress: z.number().min(0).max(1),
    url: z.string(),
    request: exportBody,
    values: z.int().meta({ description: 'Values the files hold at most (days or periods a model lacks included).' }),
    skipped: z
      .array(z.strictObject({ scenario: z.string(), years: z.string().optional(), available: z.tuple([z.int(), z.int()]).optional(), reason: z.string() }))
      .optional()
      .meta({ description: 'Scenarios asked for that get no file, each with why: none of `years` within its own years (`available`, first and last), or no data for these places in this build.' }),
    models_left_out: z
      .array(z.strictObject({ scenario: z.string(), models: z.array(z.string()), reason: z.string() }))
      .optional()
      .meta({ description: "Per scenario, models left out of its file, with why: published without a variable the export needs (tas, hurs or huss), or (with models omitted) no data for these places in this build." }),
    files: z
      .array(
        z.strictObject({
          name: z.string(),
          url: z.string(),
          bytes: z.int(),
          sha256: z.string(),
          dataset: z.string().meta({ description: 'The dataset the file holds.' }),
          scenario: z.string().nullable().meta({ description: "The scenario the file holds (a CSV's rows repeat neither it nor the dataset); null for a name that is not one this service gives." }),
        }),
      )
      .meta({ description: 'The files written so far (all of them once done), one per scenario; each is whole.' }),
    created_at: z.string(),
    expires_at: z.string().meta({ description: 'When the export and its files are removed (EXPORT_TTL after it was asked for).' }),
    error: z.string().nullable().meta({ description: 'Why it failed (status failed), else null.' }),
  })
  .meta({ id: 'Export' });

const retryAfter = z.object({ 'Retry-After': z.string().meta({ description: 'Seconds to wait before asking again.', override: wireType('integer', 1) }) });

const DESCRIPTION =
  'An area (bbox, city boundary, ecoregion or GeoJSON) or a list of places, every model, scenario and year asked for, raw daily variables or indicators, ' +
  'written to files that open as they are: NetCDF-4 (CF-1.8; one file per scenario, `var(model, time, lat, lon)` for an area, `var(model, location, time)` for places, `period` in place of `time` for indicators), ' +
  'Parquet (long form, zstd) or CSV (the same columns). The values equal what the raw and indicator endpoints answer for the same cell, model and day or period. ' +
  'The parameters are checked before anything runs (400 naming what is wrong); the job runs in the server, or on the queue\'s workers with QUEUE_URL.';

export function exportOperations(): Operation[] {
  const notFound = 'No export with this id for this account (another account\'s export is a 404 too), or it expired.';
  return [
    {
      method: 'post',
      path: '/api/export/',
      operationId: 'createExport',
      tag: 'Exports',
      summary: 'Ask for an export: a job that writes files',
      description: DESCRIPTION,
      auth: 'token',
      requestBody: { content: { 'application/json': { schema: exportBody } }, required: true },
      ok: { description: 'Not used: an accepted export answers 202.', content: json(accepted) },
      notFound: 'An unknown scenario, city, region or indicator, or a place or area without data.',
      extra: {
        '202': { description: 'Accepted; the Location header is the export\'s url.', headers: z.object({ Location: z.string() }), content: json(accepted) },
        '400': { description: 'A malformed or unsupported field; the detail names it. More than EXPORT_MAX_VALUES values.', content: json(errorBody) },
        '409': { description: 'The account keeps EXPORT_MAX_BYTES of export files already.', content: json(errorBody) },
        '413': { description: 'The body is over 4 MB.', content: json(errorBody) },
        '429': { description: 'The account has EXPORT_MAX_RUNNING exports queued or running.', headers: retryAfter, content: json(errorBody) },
      },
    },
    {
      method: 'get',
      path: '/api/export/',
      operationId: 'listExports',
      tag: 'Exports',
      summary: "The account's exports, newest first",
      auth: 'token',
      ok: { description: 'Exports.', content: json(z.strictObject({ results: z.array(exportStatus) })) },
    },
    {
      method: 'get',
      path: '/api/export/{export}/',
      operationId: 'getExport',
      tag: 'Exports',
      summary: 'An export: its status, progress and files',
      auth: 'token',
      pathParams: { export: exportId },
      ok: { description: 'The export.', content: json(exportStatus) },
      notFound,
    },
    {
      method: 'delete',
      path: '/api/export/{export}/',
      operationId: 'deleteExport',
      tag: 'Exports',
      summary: 'Cancel an export that is queued or running, or remove a finished one; its files are deleted',
      auth: 'token',
      pathParams: { export: exportId },
      ok: { description: 'Not used: the answer is 204.', content: json(z.null()) },
      notFound,
      extra: { '204': { description: 'Cancelled or removed; its files are gone.' } },
    },
    {
      method: 'get',
      path: '/api/export/{export}/files/{file}/',
      operationId: 'getExportFile',
      tag: 'Exports',
      summary: "One of an export's files",
      description: 'Content-Disposition names the file; ETag is its SHA-256 (If-None-Match answers 304); Range asks for part of it (206).',
      auth: 'token',
      pathParams: { export: exportId, file: fileName },
      ok: {
        description: 'The file.',
        content: {
          'application/x-netcdf': { schema: z.string().meta({ format: 'binary' }) },
          'application/vnd.apache.parquet': { schema: z.string().meta({ format: 'binary' }) },
          'text/csv': { schema: z.string() },
        },
      },
      notFound,
      extra: { '206': { description: 'The range asked for.' }, '304': { description: 'The file has the ETag of If-None-Match.' } },
    },
  ];
}
