/**
 * Why a request cannot be answered, said by the code that finds out: storage, the data build and
 * the domain folders throw these and know nothing of HTTP. The edge (src/http/errors.ts) gives each
 * its status, JSON body and headers, in one place.
 */
export abstract class ServiceError extends Error {}

/** The request asks for something malformed or unsupported; the message names the parameter and what it allows (400). */
export class BadRequestError extends ServiceError {}

/** What the request names does not exist, or has no data (404). */
export class NotFoundError extends ServiceError {
  constructor(message = 'Not found.') {
    super(message);
  }
}

/** The work asked for did not finish within its limit (a query past its timeout, 503); asking for less may. */
export class BusyError extends ServiceError {}

/** Something the answer needs is not there now: a closed store, a database that does not answer, a build older than the service (503). */
export class UnavailableError extends ServiceError {
  constructor(
    message: string,
    /** When to try again, if known (Retry-After). */
    readonly retryAfterSeconds?: number,
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

/** The 503 of a state of NotReadyReason; the message says when to come back. */
export class NotReadyError extends UnavailableError {
  constructor(
    readonly reason: NotReadyReason,
    message: string,
    retryAfterSeconds?: number,
  ) {
    super(message, retryAfterSeconds);
  }
}

export const badRequest = (detail: string) => new BadRequestError(detail);
export const notFound = (detail?: string) => new NotFoundError(detail);
