import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { Database } from '../db/duckdb.js';
import { readRows } from '../db/duckdb.js';
import { sqlFile } from '../db/sqlFiles.js';
import { toAccount, toTokenState, type AccountRow, type AccountStateRow } from './accountRows.js';
import type { Account, AccountStore, TokenState } from './accountStore.js';

export interface DuckDBAccountStoreOptions {
  /** Used instead of the secret kept in the file (config TOKEN_SECRET). */
  fixedSecret?: string;
  /** How long an operation waits for another process to release the file. Default 10 s. */
  lockWaitMs?: number;
  /**
   * Age after which the in-memory token states are re-read from the file (in the background, the
   * request in hand uses the ones it has): changes made by another process, such as rates set with
   * `make user`, reach the server within this time. Default 30 s.
   */
  refreshMs?: number;
}

/**
 * One queue per file for the whole process: DuckDB's file lock is per process, so two instances of
 * the same file opened at once in one process would not exclude each other.
 */
const queues = new Map<string, Promise<unknown>>();

/** An account id looked up and not found is not looked up again for this long. */
const MISS_TTL_MS = 5_000;
const MAX_MISSES = 10_000;

/**
 * Accounts in a small DuckDB file. DuckDB lets one process at a time open a file for writing, so
 * the file is opened per operation and closed at once (~12 ms): the server and `make user` take
 * turns, each waiting briefly while the other holds the lock. Operations in one process are
 * serialized. The token check reads the in-memory token states only (see `tokenState`).
 */
export class DuckDBAccountStore implements AccountStore {
  private readonly file: string;
  private readonly fixedSecret: string | undefined;
  private readonly lockWaitMs: number;
  private readonly refreshMs: number;
  /** Token states of every account, loaded on first need; undefined until then. */
  private states: Map<number, TokenState> | undefined;
  private statesLoadedAt = 0;
  private loadingStates: Promise<void> | undefined;
  private readonly misses = new Map<number, number>();
  private readonly lookups = new Map<number, Promise<TokenState | undefined>>();
  private secret: Promise<string> | undefined;
  private closed = false;

  constructor(file: string, options: DuckDBAccountStoreOptions = {}) {
    this.file = path.resolve(file);
    this.fixedSecret = options.fixedSecret;
    this.lockWaitMs = options.lockWaitMs ?? 10_000;
    this.refreshMs = options.refreshMs ?? 30_000;
  }

  /** Runs `work` in a transaction on a freshly opened file, after this process's earlier operations. */
  private withDb<T>(work: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('The account store is closed.'));
    const previous = queues.get(this.file) ?? Promise.resolve();
    const run = previous.then(async () => {
      // The file holds password hashes and the token signing secret: DuckDB creates it and its
      // write-ahead log while an operation runs, so files created meanwhile are the owner's only.
      // umask is process-wide; nothing else in the server creates files (the data build runs in
      // a process of its own).
      const umask = process.umask(0o077);
      const instance = await this.open().catch((err: unknown) => {
        process.umask(umask);
        throw err;
      });
      try {
        const conn = await instance.connect();
        try {
          await conn.run(sqlFile('accounts/schema.sql'));
          await conn.run('BEGIN TRANSACTION');
          try {
            const result = await work(conn);
            await conn.run('COMMIT');
            return result;
          } catch (err) {
            await conn.run('ROLLBACK').catch(() => undefined);
            throw err;
          }
        } finally {
          conn.closeSync();
        }
      } finally {
        await instance.close();
        process.umask(umask);
      }
    });
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    queues.set(this.file, settled);
    // Forget the queue once idle, so closed stores of temporary files leave nothing behind.
    void settled.then(() => {
      if (queues.get(this.file) === settled) queues.delete(this.file);
    });
    return run;
  }

  private async open(): Promise<Database> {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const deadline = Date.now() + this.lockWaitMs;
    for (let delay = 25; ; delay = Math.min(delay * 2, 400)) {
      try {
        // One thread: the statements are tiny, and the climate store has the cores.
        const instance = await Database.open(this.file, { threads: '1' });
        // A file made before its mode was enforced (or copied in) is made private too.
        if ((fs.statSync(this.file).mode & 0o077) !== 0) fs.chmodSync(this.file, 0o600);
        return instance;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const locked = /Could not set lock|Conflicting lock/i.test(message);
        if (!locked) throw new Error(`Cannot open the accounts file ${this.file}: ${message}`);
        if (Date.now() + delay > deadline) {
          throw new Error(
            `The accounts file ${this.file} stayed locked by another process for ${Math.round(this.lockWaitMs / 1000)} s ` +
              `(${message}). Try again; if it persists, look for a stuck process holding it.`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /** Keeps the in-memory state of an account read or written by this process (inside its operation). */
  private remember<R extends AccountStateRow>(row: R | undefined): R | undefined {
    if (row && this.states) {
      this.states.set(row.id, toTokenState(row));
      this.misses.delete(row.id);
    }
    return row;
  }

  private async one(sql: string, params: Record<string, unknown>): Promise<Account | undefined> {
    const row = await this.withDb(async (c) => this.remember((await readRows<AccountRow>(c, sqlFile(sql), params))[0]));
    return row && toAccount(row);
  }

  findByEmail(email: string) {
    return this.one('accounts/select_by_email.sql', { email });
  }

  getById(id: number) {
    return this.one('accounts/select_by_id.sql', { id });
  }

  async create(email: string, passwordHash: string) {
    try {
      return (await this.one('accounts/insert.sql', { email, password_hash: passwordHash }))!;
    } catch (err) {
      if (/Duplicate key|unique constraint/i.test(String(err))) throw new Error(`An account with email ${email.trim().toLowerCase()} exists already.`);
      throw err;
    }
  }

  private async update(sql: string, id: number, params: Record<string, unknown>): Promise<Account> {
    const account = await this.one(sql, { id, ...params });
    if (!account) throw new Error(`No account ${id}.`);
    return account;
  }

  async setPassword(id: number, passwordHash: string) {
    await this.update('accounts/set_password.sql', id, { password_hash: passwordHash });
  }

  async setActive(id: number, active: boolean) {
    await this.update('accounts/set_active.sql', id, { active });
  }

  async setRates(id: number, burstRate: string | null, sustainedRate: string | null) {
    await this.update('accounts/set_rates.sql', id, { burst_rate: burstRate, sustained_rate: sustainedRate });
  }

  async bumpTokenVersion(id: number) {
    return (await this.update('accounts/bump_token_version.sql', id, {})).tokenVersion;
  }

  /**
   * From memory. The first call loads every account's state; an id not in memory (an account
   * created by another process since) is read once, and a miss is remembered for a few seconds;
   * so is a state older than the token (refreshed by another process since).
   * States older than `refreshMs` are re-read in the background.
   */
  async tokenState(id: number, tokenVersion?: number): Promise<TokenState | undefined> {
    if (!this.states) await this.loadStates();
    else if (Date.now() - this.statesLoadedAt > this.refreshMs) this.refreshInBackground();
    const known = this.states!.get(id);
    if (known && (tokenVersion === undefined || known.tokenVersion >= tokenVersion)) return known;
    const missed = this.misses.get(id);
    if (!known && missed !== undefined && Date.now() - missed < MISS_TTL_MS) return undefined;
    let lookup = this.lookups.get(id);
    if (!lookup) {
      lookup = this.withDb(async (c) => {
        const row = this.remember((await readRows<AccountStateRow>(c, sqlFile('accounts/select_by_id.sql'), { id }))[0]);
        if (!row) {
          if (this.misses.size >= MAX_MISSES) this.misses.clear();
          this.misses.set(id, Date.now());
        }
        return row && toTokenState(row);
      }).finally(() => this.lookups.delete(id));
      this.lookups.set(id, lookup);
    }
    return lookup;
  }

  async tokenVersion(id: number) {
    return (await this.tokenState(id))?.tokenVersion;
  }

  private loadStates(): Promise<void> {
    this.loadingStates ??= this.withDb(async (c) => {
      const rows = await readRows<AccountStateRow>(c, sqlFile('accounts/select_token_states.sql'));
      // Replaced inside the operation, so no write of this process can land in between.
      this.states = new Map(rows.map((r) => [r.id, toTokenState(r)]));
      this.statesLoadedAt = Date.now();
      this.misses.clear();
    }).finally(() => {
      this.loadingStates = undefined;
    });
    return this.loadingStates;
  }

  private refreshInBackground() {
    if (this.loadingStates || this.closed) return;
    // Not retried at once on failure: the next request after `refreshMs` tries again.
    this.statesLoadedAt = Date.now();
    this.loadStates().catch((err: unknown) => {
      console.warn(`[accounts] could not refresh token states: ${err instanceof Error ? err.message : String(err)}`);
    });
  }

  signingSecret(): Promise<string> {
    if (this.fixedSecret) return Promise.resolve(this.fixedSecret);
    this.secret ??= this.withDb(async (c) => {
      await c.run(sqlFile('accounts/secret_insert.sql'), { value: randomBytes(32).toString('base64url') });
      const rows = await readRows<{ value: string }>(c, sqlFile('accounts/secret_select.sql'));
      return rows[0]!.value;
    });
    this.secret.catch(() => {
      this.secret = undefined;
    });
    return this.secret;
  }

  /** The file is opened per operation and checked then; nothing to reach between operations. */
  async ping() {}

  async close() {
    const pending = queues.get(this.file);
    this.closed = true;
    await pending;
  }
}
