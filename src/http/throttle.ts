import type { Request, RequestHandler, Response } from 'express';
import { rateLimit, type RateLimitInfo, type RateLimitRequestHandler } from 'express-rate-limit';
import type { AuthenticatedAccount } from '../auth/requireToken.js';
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
  const limiters = new Map<string, RateLimitRequestHandler>();
  const limiter = (scope: string, rate: string) => {
    const key = `${scope}:${rate}`;
    let l = limiters.get(key);
    if (!l) {
      const { limit, windowMs } = parseRate(rate);
      l = rateLimit({
        windowMs,
        limit,
        store: stores.store(key),
        standardHeaders: false,
        legacyHeaders: false,
        // Created on first use of each distinct rate (a handful), deliberately not at start-up.
        validate: { creationStack: false },
        keyGenerator: (_req: Request, res: Response) => String((res.locals.account as AuthenticatedAccount).id),
        // A 503 is the service's failure, not the caller's use: a cell still being built, a query
        // past its timeout. Refunded, so that a client retrying after Retry-After loses no quota.
        skipFailedRequests: true,
        requestWasSuccessful: (_req: Request, res: Response) => res.statusCode !== 503,
        handler: (req, _res, next) => {
          onThrottled?.();
          next(throttledError(req, windowMs));
        },
      });
      limiters.set(key, l);
    }
    return l;
  };
  return (req, res, next) => {
    const account = res.locals.account as AuthenticatedAccount;
    const burst = limiter('burst', account.burstRate ?? defaults.burst);
    const sustained = limiter('sustained', account.sustainedRate ?? defaults.sustained);
    burst(req, res, (err?: unknown) => (err ? next(err) : sustained(req, res, next)));
  };
}
