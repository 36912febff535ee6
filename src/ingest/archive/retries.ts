import { FetchError } from './fetchError.js';

/** How often and how patiently a request is tried again. */
export interface RetryPolicy {
  /** Attempts after the first. */
  retries: number;
  /** The first wait; it doubles with each attempt, up to maxBackoffMs, unless the server says how long (Retry-After). */
  backoffMs: number;
  maxBackoffMs: number;
  log: (line: string) => void;
}

export const DEFAULT_POLICY: Omit<RetryPolicy, 'log'> = { retries: 6, backoffMs: 1000, maxBackoffMs: 60_000 };

/**
 * A failed attempt that another may cure: a connection error or cut, 408, 429, a 5xx, a body that
 * is short, damaged or not NetCDF. `retryAfterMs` is the server's Retry-After, when it gave one.
 */
export class RetryableError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** Retry-After as milliseconds: delay-seconds or an HTTP date. */
export function retryAfterMs(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 408: 'Request Timeout', 416: 'Range Not Satisfiable', 429: 'Too Many Requests' };

/**
 * Throws for an answer that is not a success: a RetryableError for 408, 429 and 5xx, a FetchError
 * naming the URL for the others (403 and 404 will not change by asking again).
 */
export function checkStatus(res: Response, url: string, body = ''): void {
  if (res.status < 300 || res.status === 416) return;
  const what = `GET ${url} answered ${res.status} ${res.statusText || STATUS_TEXT[res.status] || ''}`.trim();
  const detail = body.trim().slice(0, 200);
  if (res.status === 408 || res.status === 429 || res.status >= 500) {
    throw new RetryableError(`${what}${detail ? `: ${detail}` : ''}`, retryAfterMs(res.headers.get('retry-after')));
  }
  const hint =
    res.status === 404
      ? 'the publisher has no such file: check the dataset, model, scenario and years asked for, or ARCHIVE_URL_* if a mirror stands in'
      : res.status === 403
        ? 'the server refuses it (a private bucket, a proxy, or a mirror without that path)'
        : 'not retried';
  throw new FetchError(`${what}${detail ? ` (${detail})` : ''}: ${hint}.`, res.status, body);
}

/** Runs `attempt` until it succeeds, a non-retryable error, or the retries are spent (the error then names the last problem). */
export async function withRetries<T>(what: string, policy: RetryPolicy, attempt: (n: number) => Promise<T>): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      const retryable = err instanceof RetryableError || isConnectionError(err);
      const message = describeError(err);
      if (!retryable) throw err;
      if (n >= policy.retries) throw new FetchError(`${what} failed ${n + 1} times; the last: ${message}. Run the same command again later: what is whole is kept.`);
      const wait = err instanceof RetryableError && err.retryAfterMs !== undefined ? err.retryAfterMs : Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** n);
      policy.log(`${what}: ${message}; trying again in ${(wait / 1000).toFixed(1)} s (attempt ${n + 2} of ${policy.retries + 1})`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** Errors of the connection itself (refused, reset, cut, DNS, TLS), which fetch raises as a TypeError with a cause. */
function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'TypeError' && /fetch failed|terminated|other side closed/i.test(err.message)) return true;
  const code = (err as { code?: string }).code ?? ((err as { cause?: { code?: string } }).cause?.code);
  return typeof code === 'string' && /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|UND_ERR_\w+)$/.test(code);
}

/** A connection error's words, for a retry's log line. */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: { message?: string; code?: string } }).cause;
  return cause?.message ? `${err.message} (${cause.code ?? cause.message})` : err.message;
}
