import { MemoryStore, type Store } from 'express-rate-limit';

/**
 * The one place that decides where throttle counters live. The embedded default keeps them in
 * process memory; several replicas behind a load balancer need a shared Store instead (for
 * example `rate-limit-redis` against Redis), which plugs in here without touching routes.
 */
export function createThrottleStore(): Store {
  return new MemoryStore();
}

/** DRF's wording of the 429 body, with the wait in whole seconds. */
export function throttledDetail(seconds: number): string {
  return `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.`;
}
