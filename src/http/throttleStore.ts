import { once } from 'node:events';
import { MemoryStore, type IncrementResponse, type Options, type Store } from 'express-rate-limit';
import type { RedisReply, RedisStore } from 'rate-limit-redis';
import type { Logger } from '../logger.js';

/**
 * Where the throttle counters live: in process memory (express-rate-limit's MemoryStore, fixed
 * windows), or, with THROTTLE_URL, in Redis, shared by every replica so that N replicas allow the
 * configured rate and not N times it. Every limiter asks for its store by name; the name keeps the
 * limiters' keys apart in Redis (the burst and sustained limiters both key on the account id).
 */
export interface ThrottleStores {
  store(name: string): Store;
  /** Store failures since start: each let a request through uncounted (Redis only). */
  readonly errors: number;
  close(): Promise<void>;
}

/** How long a Redis command may take before the request goes on uncounted. */
const COMMAND_TIMEOUT_MS = 500;
/** At most one warning per this long while Redis fails. */
const WARN_EVERY_MS = 60_000;

export function memoryThrottleStores(): ThrottleStores {
  return { store: () => new MemoryStore(), errors: 0, close: async () => {} };
}

/**
 * The stores THROTTLE_URL asks for. With Redis, a failure (Redis down, slow, restarting) fails
 * open: the request is answered and not counted, a warning is logged at most once a minute, and
 * the failures are counted (`errors`, exported in /metrics). Refusing every request while the
 * throttle's own store is down would turn a counter outage into a full outage; the counts resume
 * as soon as Redis answers again (the client reconnects by itself).
 */
export async function createThrottleStores(config: { THROTTLE_URL?: string | undefined }, logger: Logger): Promise<ThrottleStores> {
  if (!config.THROTTLE_URL) return memoryThrottleStores();
  // Loaded only here: ioredis costs 0.3 s of CPU at the start of every process without THROTTLE_URL.
  const [{ Redis }, { RedisStore }] = await Promise.all([import('ioredis'), import('rate-limit-redis')]);
  const client = new Redis(config.THROTTLE_URL, {
    // Fail fast while disconnected instead of queueing commands (and requests) until Redis is back.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // Keep reconnecting, at most every 2 s, for as long as the server runs.
    retryStrategy: (times) => Math.min(times * 100, 2000),
  });
  let errors = 0;
  let lastWarning = 0;
  const failed = (err: unknown) => {
    errors++;
    if (Date.now() - lastWarning >= WARN_EVERY_MS) {
      lastWarning = Date.now();
      logger.warn({ err: String(err), throttle_store_errors: errors }, 'throttle store (Redis) failed: requests pass uncounted until it answers again');
    }
  };
  // Connection errors also surface through the commands; without a listener ioredis prints each one.
  client.on('error', () => {});
  try {
    await Promise.race([once(client, 'ready'), new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 5 s')), 5000))]);
    logger.info({ throttle_url: redactUrl(config.THROTTLE_URL) }, 'throttle counters in Redis');
  } catch (err) {
    failed(err);
  }
  const sendCommand = (...args: string[]) => client.call(args[0]!, ...args.slice(1)) as Promise<RedisReply>;
  return {
    store: (name) => {
      const prefix = `throttle:${name}:`;
      return new FailOpenStore(prefix, () => new RedisStore({ prefix, sendCommand }), failed);
    },
    get errors() {
      return errors;
    },
    close: async () => {
      client.disconnect();
    },
  };
}

/** The URL without its password, for the log. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/**
 * A Redis store that lets requests through when Redis fails, and starts over with a fresh store
 * after a failure: rate-limit-redis loads its Lua scripts once, at init, and a store whose load
 * failed (Redis down at that moment) would fail for ever.
 */
class FailOpenStore implements Store {
  private inner: RedisStore;
  private options: Options | undefined;
  private broken = false;

  constructor(
    /** The keys' prefix in Redis; express-rate-limit's double-count check tells stores apart by it. */
    readonly prefix: string,
    private readonly make: () => RedisStore,
    private readonly failed: (err: unknown) => void,
  ) {
    this.inner = make();
  }

  init(options: Options): void {
    this.options = options;
    this.inner.init(options).catch((err: unknown) => {
      this.broken = true;
      this.failed(err);
    });
  }

  private async current(): Promise<RedisStore> {
    if (this.broken && this.options) {
      const fresh = this.make();
      await fresh.init(this.options);
      this.inner = fresh;
      this.broken = false;
    }
    return this.inner;
  }

  async increment(key: string): Promise<IncrementResponse> {
    try {
      return await (await this.current()).increment(key);
    } catch (err) {
      this.broken = true;
      this.failed(err);
      // Counted as the first hit of a new window: under every limit, so the request passes.
      return { totalHits: 1, resetTime: undefined };
    }
  }

  async decrement(key: string): Promise<void> {
    try {
      await (await this.current()).decrement(key);
    } catch (err) {
      this.broken = true;
      this.failed(err);
    }
  }

  async resetKey(key: string): Promise<void> {
    try {
      await (await this.current()).resetKey(key);
    } catch (err) {
      this.broken = true;
      this.failed(err);
    }
  }
}

/** DRF's wording of the 429 body, with the wait in whole seconds ("1 second." singular). */
export function throttledDetail(seconds: number): string {
  return `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.`;
}
