import { MemoryStore, type Store } from 'express-rate-limit';

/**
 * The one place that decides where throttle counters live. The embedded default keeps them in
 * process memory (express-rate-limit's MemoryStore: fixed windows). Several replicas behind a load
 * balancer need one shared Store instead, for example `rate-limit-redis` against Redis, which
 * plugs in here without touching routes:
 *
 *     return new RedisStore({ prefix: `throttle:${name}:`, sendCommand: ... });
 *
 * `name` tells the limiters apart in such a shared store (their keys would collide otherwise:
 * the burst and sustained limiters both key on the account id); each limiter calls this once
 * with its own name and gets its own store. MemoryStore needs no name.
 */
export function createThrottleStore(name = 'default'): Store {
  void name;
  return new MemoryStore();
}

/** DRF's wording of the 429 body, with the wait in whole seconds ("1 second." singular). */
export function throttledDetail(seconds: number): string {
  return `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.`;
}
