import type { Request, RequestHandler, Response } from 'express';
import { rateLimit, type RateLimitInfo, type RateLimitRequestHandler, type Store } from 'express-rate-limit';
import type { AuthenticatedAccount } from './account.js';
import { parseRate } from '../config.js';
import { HttpError } from './errors.js';
import { throttledDetail, type ThrottleStores } from './throttleStore.js';

/** The 429 of every throttle: an integer Retry-After and DRF's sentence. */
export function throttledError(req: Request, windowMs: number): HttpError {
  const info = (req as Request & { rateLimit?: RateLimitInfo }).rateLimit;
  const reset = info?.resetTime?.getTime() ?? Date.now() + windowMs;
  const seconds = Math.max(1, Math.ceil((reset - Date.now()) / 1000));
  const detail = throttledDetail(seconds);
  return new HttpError(429, detail, { detail }, { 'Retry-After': String(seconds) });
}

/**
 * Per-account limits on the climate data endpoints: a burst and a sustained rate, each overridable
 * per account (`make user ... --burst-rate 100/min`). One limiter per distinct rate, keyed on the
 * account id, so accounts with the same rate share nothing but the configuration. As in the
 * original, the burst check comes first and a request refused by it is not counted as sustained.
 * A request answered 503 is not counted at all.
 */
export function accountThrottle(defaults: { burst: string; sustained: string }, stores: ThrottleStores, onThrottled?: () => void): RequestHandler {
  return accountThrottles(defaults, stores, onThrottled).perRequest;
}

export interface AccountThrottles {
  /** Counts each request as one. */
  perRequest: RequestHandler;
  /**
   * Counts this request as `units` requests against the same counters, all or nothing: a request
   * over the remaining budget is refused with a 429 and charged nothing. Like `perRequest`, an
   * answer 503 gives the units back.
   */
  charge(req: Request, res: Response, units: number): Promise<void>;
}

export function accountThrottles(defaults: { burst: string; sustained: string }, stores: ThrottleStores, onThrottled?: () => void): AccountThrottles {
  const limiters = new Map<string, { handler: RateLimitRequestHandler; store: Store; limit: number; windowMs: number; rate: string }>();
  const limiter = (scope: string, rate: string) => {
    const key = `${scope}:${rate}`;
    let l = limiters.get(key);
    if (!l) {
      const { limit, windowMs } = parseRate(rate);
      // Kept beside the limiter so that a weighted charge counts in the very counters it reads.
      const store = stores.store(key);
      const handler = rateLimit({
        windowMs,
        limit,
        store,
        standardHeaders: false,
        legacyHeaders: false,
        // Created on first use of each distinct rate (a handful), deliberately not at start-up.
        validate: { creationStack: false },
        keyGenerator: (_req: Request, res: Response) => accountKey(res),
        // A 503 is the service's failure, not the caller's use: a cell still being built, a query
        // past its timeout. Refunded, so that a client retrying after Retry-After loses no quota.
        skipFailedRequests: true,
        requestWasSuccessful: (_req: Request, res: Response) => res.statusCode !== 503,
        handler: (req, _res, next) => {
          onThrottled?.();
          next(throttledError(req, windowMs));
        },
      });
      l = { handler, store, limit, windowMs, rate };
      limiters.set(key, l);
    }
    return l;
  };
  const scoped = (res: Response) => {
    const account = res.locals.account as AuthenticatedAccount;
    return [limiter('burst', account.burstRate ?? defaults.burst), limiter('sustained', account.sustainedRate ?? defaults.sustained)] as const;
  };
  const perRequest: RequestHandler = (req, res, next) => {
    const [burst, sustained] = scoped(res);
    burst.handler(req, res, (err?: unknown) => (err ? next(err) : sustained.handler(req, res, next)));
  };
  const charge = async (_req: Request, res: Response, units: number) => {
    const key = accountKey(res);
    const charged: { store: Store; n: number }[] = [];
    const refund = (all: typeof charged) => Promise.all(all.flatMap(({ store, n }) => Array.from({ length: n }, () => store.decrement(key))));
    for (const l of scoped(res)) {
      // The Store interface counts one hit per call; the calls go out together (Redis pipelines them).
      const hits = await Promise.all(Array.from({ length: units }, () => l.store.increment(key)));
      charged.push({ store: l.store, n: units });
      const total = Math.max(...hits.map((h) => h.totalHits));
      if (total > l.limit) {
        await refund(charged);
        onThrottled?.();
        const reset = hits.map((h) => h.resetTime?.getTime() ?? 0).reduce((a, b) => Math.max(a, b), 0) || Date.now() + l.windowMs;
        const seconds = Math.max(1, Math.ceil((reset - Date.now()) / 1000));
        const detail =
          units > l.limit
            ? `This request counts as ${units} requests, more than the account's rate of ${l.rate} allows at all; send fewer distinct map cells per request.`
            : throttledDetail(seconds);
        throw new HttpError(429, detail, { detail }, { 'Retry-After': String(seconds) });
      }
    }
    res.on('finish', () => {
      if (res.statusCode === 503) void refund(charged);
    });
  };
  return { perRequest, charge };
}

const accountKey = (res: Response) => String((res.locals.account as AuthenticatedAccount).id);
