import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { BadRequestError, BusyError, NotFoundError, NotReadyError, ServiceError, UnavailableError, type NotReadyReason } from '../errors.js';

/**
 * An answer other than 200 decided at the edge, by the routes and middleware: `body` defaults to
 * {"detail": message}; a few endpoints keep the original API's other body shapes (nearest-city
 * `error`, field-error dicts at the token endpoint). The code below the edge throws the errors of
 * src/errors.ts instead, which httpErrorOf turns into one of these.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: Record<string, unknown> = { detail: message },
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Says that the response being sent is a not-ready answer (the error handler does it for a NotReadyError). */
export function markNotReady(res: Response, reason: NotReadyReason) {
  res.locals.notReady = reason;
}

/** The reason of a not-ready 503, or undefined for any other answer. */
export function notReadyReason(res: Response): NotReadyReason | undefined {
  return res.statusCode === 503 ? (res.locals.notReady as NotReadyReason | undefined) : undefined;
}

/** The HTTP status of each error the layers below the edge throw (src/errors.ts). */
function statusOf(err: ServiceError): number {
  if (err instanceof BadRequestError) return 400;
  if (err instanceof NotFoundError) return 404;
  if (err instanceof BusyError || err instanceof UnavailableError) return 503;
  return 500;
}

/**
 * The answer an error stands for: an HttpError as it is, a ServiceError as its status, {"detail":
 * message} and Retry-After when it says when to come back; undefined for any other error (a fault).
 */
export function httpErrorOf(err: HttpError | ServiceError): HttpError;
export function httpErrorOf(err: unknown): HttpError | undefined;
export function httpErrorOf(err: unknown): HttpError | undefined {
  if (err instanceof HttpError) return err;
  if (!(err instanceof ServiceError)) return undefined;
  const retryAfter = err instanceof UnavailableError ? err.retryAfterSeconds : undefined;
  return new HttpError(statusOf(err), err.message, { detail: err.message }, retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) });
}

export const unknownPath: RequestHandler = (_req, _res, next) => next(new NotFoundError());

export const errorHandler: ErrorRequestHandler = (err, _req, res, _next) => {
  // ETag and Cache-Control describe the data a request gets; an error is not that (and a 429 or
  // 503 must not be reused).
  res.removeHeader('ETag');
  res.removeHeader('Cache-Control');
  const answer = httpErrorOf(err);
  if (answer) {
    if (err instanceof NotReadyError) markNotReady(res, err.reason);
    res.set(answer.headers).status(answer.status).json(answer.body);
    return;
  }
  // Body-parser failures carry a status (400 malformed JSON, 413 too large).
  const status = typeof err?.status === 'number' && err.status >= 400 && err.status < 500 ? err.status : 500;
  if (status === 500) {
    // The request log writes it with the request's line (src/http/requestLog.ts).
    res.locals.error = err;
    res.status(500).json({ detail: 'Internal server error.' });
    return;
  }
  const detail = err.type === 'entity.parse.failed' ? 'Malformed request body: it is not valid JSON.' : String(err.message);
  res.status(status).json({ detail });
};
