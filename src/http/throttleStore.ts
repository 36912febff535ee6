import { MemoryStore, type Store } from 'express-rate-limit';

/**
 * The one place that decides where throttle counters live: in process memory (express-rate-limit's
 * MemoryStore, fixed windows), the only store there is. Each limiter calls this once with its own
 * name, which a shared store would need to keep the limiters' keys apart (the burst and sustained
 * limiters both key on the account id); MemoryStore needs none.
 */
export function createThrottleStore(name = 'default'): Store {
  void name;
  return new MemoryStore();
}

/** DRF's wording of the 429 body, with the wait in whole seconds ("1 second." singular). */
export function throttledDetail(seconds: number): string {
  return `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.`;
}
