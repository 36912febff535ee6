import type { ErrorRequestHandler, RequestHandler, Response } from 'express';

/**
 * The one error type of the service. `body` defaults to {"detail": message}; a few endpoints keep
 * the original API's other body shapes (nearest-city `error`, field-error dicts at the token endpoint).
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

/**
 * Why a 503 answers a state the service passes through by design rather than a fault: its data is
 * still being built, or a shutdown is under way. Such answers are logged at their path's usual
 * level, not as errors, and /metrics counts them apart (http_not_ready_responses_total), so that
 * error lines and 5xx alerts mean faults. A query timeout, a closed store or an account store that
 * does not answer stay faults.
 */
export type NotReadyReason = 'building' | 'shutting_down';

/** The 503 of a state of NotReadyReason; the detail says when to come back (with Retry-After when known). */
export class NotReadyError extends HttpError {
  constructor(
    readonly reason: NotReadyReason,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(503, message, { detail: message }, headers);
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

export const badRequest = (detail: string) => new HttpError(400, detail);
export const notFound = (detail = 'Not found.') => new HttpError(404, detail);

export const unknownPath: RequestHandler = (_req, _res, next) => next(notFound());

export const errorHandler: ErrorRequestHandler = (err, _req, res, _next) => {
  // ETag and Cache-Control describe the data a request gets; an error is not that (and a 429 or
  // 503 must not be reused).
  res.removeHeader('ETag');
  res.removeHeader('Cache-Control');
  if (err instanceof HttpError) {
    if (err instanceof NotReadyError) markNotReady(res, err.reason);
    res.set(err.headers).status(err.status).json(err.body);
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
