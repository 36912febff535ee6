import pg from 'pg';
import { sqlFile } from '../db/sqlFiles.js';
import { UnavailableError } from '../errors.js';
import { toAccount, toTokenState, type AccountRow } from './accountRows.js';
import type { Account, AccountStore, TokenState } from './accountStore.js';

/**
 * How long a token state read from PostgreSQL is trusted. A token refreshed (or an account
 * deactivated) on one replica is refused by every other within this time; a cache of a second
 * keeps most requests of a busy client off the database. (LISTEN/NOTIFY would be immediate but
 * needs a dedicated connection per replica and a way to notice a missed notification after a
 * reconnect; a 1 s bound needs neither.)
 */
const STATE_TTL_MS = 1000;
/** Any PostgreSQL call gives up after this: a request never hangs on a dead database. */
const TIMEOUT_MS = 2000;
/** pg_advisory_lock key of the schema migration (any constant shared by the replicas). */
const MIGRATION_LOCK = 4_246_611;

/** 503: PostgreSQL did not answer; the request may be retried. */
function unavailable(err: unknown): UnavailableError {
  const e = new UnavailableError('The account store (PostgreSQL) is not answering, so the token cannot be checked. Try again in a few seconds.', 5);
  e.cause = err;
  return e;
}

/**
 * Accounts in PostgreSQL (ACCOUNTS_URL), shared by every replica: node-postgres, pooled, every
 * statement from sql/accounts/postgres/ with positional parameters. The token signing secret is
 * not kept here: replicas are given the same TOKEN_SECRET (config refuses to start without it).
 */
export class PostgresAccountStore implements AccountStore {
  private readonly pool: pg.Pool;
  /**
   * Token states by account, each with the time its read was sent: the row is a snapshot taken
   * after that, so trusting it until `at + STATE_TTL_MS` never uses a state that missed a change
   * committed more than STATE_TTL_MS earlier, however slow the read was.
   */
  private readonly states = new Map<number, { state: TokenState | undefined; at: number }>();
  private readonly lookups = new Map<number, { state: Promise<TokenState | undefined>; sent: number }>();

  constructor(
    url: string,
    private readonly secret: string,
  ) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: 8,
      connectionTimeoutMillis: TIMEOUT_MS,
      query_timeout: TIMEOUT_MS,
      statement_timeout: TIMEOUT_MS,
      idleTimeoutMillis: 30_000,
    });
    // An idle client's connection dropping (PostgreSQL restarted) is reported here; the pool
    // replaces it on the next checkout.
    this.pool.on('error', () => {});
  }

  /** Creates or upgrades the schema, once at a time across replicas. */
  async migrate(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      try {
        await client.query(sqlFile('accounts/postgres/schema.sql'));
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      }
    } finally {
      client.release();
    }
  }

  private async rows(file: string, params: unknown[]): Promise<AccountRow[]> {
    const sent = Date.now();
    let result: pg.QueryResult<AccountRow>;
    try {
      result = await this.pool.query<AccountRow>(sqlFile(`accounts/postgres/${file}`), params);
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw err;
      throw unavailable(err);
    }
    for (const r of result.rows) this.remember(r.id, toTokenState(r), sent);
    return result.rows;
  }

  /** Keeps the state read last: a slow read finishing after a newer one must not replace it. */
  private remember(id: number, state: TokenState | undefined, sent: number) {
    const held = this.states.get(id);
    if (!held || held.at <= sent) this.states.set(id, { state, at: sent });
  }

  private async one(file: string, params: unknown[]): Promise<Account | undefined> {
    const row = (await this.rows(file, params))[0];
    return row && toAccount(row);
  }

  findByEmail(email: string) {
    return this.one('select_by_email.sql', [email]);
  }

  getById(id: number) {
    return this.one('select_by_id.sql', [id]);
  }

  async create(email: string, passwordHash: string): Promise<Account> {
    try {
      return (await this.one('insert.sql', [email, passwordHash]))!;
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw new Error(`An account with email ${email.trim().toLowerCase()} exists already.`);
      throw err;
    }
  }

  private async update(file: string, params: unknown[]): Promise<Account> {
    const account = await this.one(file, params);
    if (!account) throw new Error(`No account ${String(params[0])}.`);
    return account;
  }

  async setPassword(id: number, passwordHash: string) {
    await this.update('set_password.sql', [id, passwordHash]);
  }

  async setActive(id: number, active: boolean) {
    await this.update('set_active.sql', [id, active]);
  }

  async setRates(id: number, burstRate: string | null, sustainedRate: string | null) {
    await this.update('set_rates.sql', [id, burstRate, sustainedRate]);
  }

  async bumpTokenVersion(id: number) {
    return (await this.update('bump_token_version.sql', [id])).tokenVersion;
  }

  /**
   * The account's state as of at most STATE_TTL_MS ago (read by this replica), or read now when
   * the token is newer than the state (refreshed on another replica). Concurrent requests of one
   * account share one read while it is recent enough. When PostgreSQL does not answer, 503: a
   * state older than the TTL is never used, so a revoked token is not let in during an outage.
   */
  async tokenState(id: number, tokenVersion?: number): Promise<TokenState | undefined> {
    const cached = this.states.get(id);
    const outdated = tokenVersion !== undefined && cached?.state !== undefined && cached.state.tokenVersion < tokenVersion;
    if (cached && !outdated && Date.now() - cached.at < STATE_TTL_MS) return cached.state;
    const pending = this.lookups.get(id);
    // A token newer than the state held may have been issued after a read under way was sent.
    if (pending && !outdated && Date.now() - pending.sent < STATE_TTL_MS) return pending.state;
    const sent = Date.now();
    const lookup = {
      sent,
      state: this.rows('select_by_id.sql', [id])
        .then((rows) => {
          if (rows.length === 0) this.remember(id, undefined, sent);
          return rows[0] && toTokenState(rows[0]);
        })
        .finally(() => {
          if (this.lookups.get(id) === lookup) this.lookups.delete(id);
        }),
    };
    this.lookups.set(id, lookup);
    return lookup.state;
  }

  async tokenVersion(id: number) {
    return (await this.tokenState(id))?.tokenVersion;
  }

  async signingSecret() {
    return this.secret;
  }

  /** For /readyz: rejects while PostgreSQL does not answer. */
  async ping(): Promise<void> {
    try {
      await this.pool.query('SELECT 1');
    } catch (err) {
      throw unavailable(err);
    }
  }

  async close() {
    await this.pool.end();
  }
}
