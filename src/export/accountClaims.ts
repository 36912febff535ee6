import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { UnavailableError } from '../errors.js';

/**
 * Makes "count the account's running exports, then add one" a single step, so that EXPORT_MAX_RUNNING
 * holds when two requests of an account arrive at once: in this process a chain per account; across
 * replicas (QUEUE_URL) a lock per account in Redis, as a replica may answer either request.
 */
export interface AccountClaims {
  exclusive<T>(account: number, claim: () => Promise<T> | T): Promise<T>;
}

/** One process: the claims of an account run one after the other. */
export class ProcessClaims implements AccountClaims {
  private readonly chains = new Map<number, Promise<unknown>>();

  async exclusive<T>(account: number, claim: () => Promise<T> | T): Promise<T> {
    const before = this.chains.get(account) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(claim);
    this.chains.set(account, mine);
    try {
      return await mine;
    } finally {
      if (this.chains.get(account) === mine) this.chains.delete(account);
    }
  }
}

/** Releases the lock only if it is still this holder's (its lease may have run out). */
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/** A claim reads and writes a few small files: far less than this lease. */
const LEASE_MS = 10_000;
const WAIT_MS = 15_000;

/** Replicas on one Redis: a lease per account (SET NX PX), released by its holder. */
export class RedisClaims implements AccountClaims {
  constructor(private readonly redis: () => Promise<Redis>) {}

  async exclusive<T>(account: number, claim: () => Promise<T> | T): Promise<T> {
    const key = `climate-export:claim:${account}`;
    const token = randomBytes(8).toString('hex');
    const until = Date.now() + WAIT_MS;
    const redis = await this.redis();
    while ((await redis.set(key, token, 'PX', LEASE_MS, 'NX')) !== 'OK') {
      if (Date.now() > until) throw new UnavailableError('Another request of this account holds its export count for too long; try again in a few seconds.');
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 30));
    }
    try {
      return await claim();
    } finally {
      await redis.eval(RELEASE, 1, key, token);
    }
  }
}
