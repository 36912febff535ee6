import type { Request, Response } from 'express';
import { z } from 'zod';
import { badRequest } from '../errors.js';

/**
 * Output formats of the climate data endpoints. JSON stays the default; CSV and Arrow carry the same
 * values as tables for analysts (pandas, R, DuckDB), chosen by `format` or by the Accept header.
 */
export const FORMATS = ['json', 'csv', 'arrow'] as const;
export type Format = (typeof FORMATS)[number];

export const MEDIA_TYPES: Record<Format, string> = {
  json: 'application/json',
  csv: 'text/csv',
  arrow: 'application/vnd.apache.arrow.stream',
};

/** File extensions of downloads; `.arrows` is the registered extension of the Arrow IPC stream format. */
export const EXTENSIONS: Record<Format, string> = { json: 'json', csv: 'csv', arrow: 'arrows' };

/**
 * `format` as the endpoints' query shapes list it, for the OpenAPI document; negotiateFormat parses
 * it (absent, the Accept header chooses, which a zod default cannot say).
 */
export const formatQuery = {
  format: z
    .enum(FORMATS)
    .default('json')
    .meta({
      description:
        'Response format: json (the default), csv (one row per day or period) or arrow (an Apache Arrow IPC stream). ' +
        `Without it, Accept: ${MEDIA_TYPES.csv} or ${MEDIA_TYPES.arrow} chooses the format.`,
    }),
};

const BY_MEDIA_TYPE = new Map(FORMATS.map((f) => [MEDIA_TYPES[f], f]));
const OFFERED = FORMATS.map((f) => MEDIA_TYPES[f]);

/**
 * The response format: the `format` query parameter when given (it wins, so a link can force a
 * download whatever the client sends), else the best of the Accept header's types by q-value, else
 * JSON. An Accept naming none of the three (a browser's text/html) gets JSON rather than a 406,
 * as before formats existed.
 */
export function negotiateFormat(req: Request): Format {
  const given = req.query.format;
  // Empty counts as absent, as for every other query parameter.
  if (given !== undefined && given !== '') {
    const value = typeof given === 'string' ? given.trim() : undefined;
    if (value === undefined || !(FORMATS as readonly string[]).includes(value)) {
      const sent = typeof given === 'string' ? `'${given}'` : 'several values';
      throw badRequest(`format must be one of ${FORMATS.join(', ')}; got ${sent}.`);
    }
    return value as Format;
  }
  const best = req.accepts(OFFERED);
  return (best && BY_MEDIA_TYPE.get(best)) || 'json';
}

/**
 * Sends a CSV or Arrow body as a download. The answer depends on Accept, so caches must key on it.
 * Errors never come here: they are thrown before and answered as JSON by the error handler.
 */
export function sendTable(res: Response, format: Exclude<Format, 'json'>, fileStem: string, body: string | string[] | Uint8Array) {
  res
    .vary('Accept')
    .type(MEDIA_TYPES[format])
    .set('Content-Disposition', `attachment; filename="${fileStem}.${EXTENSIONS[format]}"`);
  if (Array.isArray(body)) sendPieces(res, body);
  else res.send(typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength));
}

/**
 * Sends a large text body (a century of daily values: 1-7 MB) as the concatenation of `parts`,
 * written in pieces of about 64 KB. Joined into one string, every such response lands in V8's
 * large-object space, which only a full GC frees: 16 clients of raw centuries grew the heap to
 * 250 MB. Headers (Content-Type, Vary) must be set before.
 */
export function sendPieces(res: Response, parts: string[]) {
  let piece = '';
  for (const part of parts) {
    piece += part;
    if (piece.length >= 65536) {
      res.write(piece);
      piece = '';
    }
  }
  res.end(piece);
}
