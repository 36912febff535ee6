import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { readRows } from '../db/duckdb.js';
import { sqlFile } from '../db/sqlFiles.js';
import type { Account, AccountStore } from './accountStore.js';

interface Row {
  id: number;
  email: string;
  password_hash: string;
  token_version: number;
  is_active: boolean;
  burst_rate: string | null;
  sustained_rate: string | null;
}

const toAccount = (r: Row): Account => ({
  id: r.id,
  email: r.email,
  passwordHash: r.password_hash,
  tokenVersion: r.token_version,
  isActive: r.is_active,
  burstRate: r.burst_rate,
  sustainedRate: r.sustained_rate,
});

const LOCK_WAIT_MS = 10_000;

/**
 * Accounts in a small DuckDB file. DuckDB lets one process at a time open a file for writing, so
 * the file is opened per operation and closed at once: the server and `make user` can then take
 * turns, each waiting briefly while the other holds the lock.
 */
export class DuckDBAccountStore implements AccountStore {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly states = new Map<number, Account>();
  private secret: string | undefined;

  constructor(
    private readonly file: string,
    private readonly fixedSecret?: string,
  ) {}

  private withDb<T>(work: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      const instance = await this.open();
      const conn = await instance.connect();
      try {
        await conn.run(sqlFile('accounts/schema.sql'));
        return await work(conn);
      } finally {
        conn.closeSync();
        instance.closeSync();
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async open(): Promise<DuckDBInstance> {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
      try {
        return await DuckDBInstance.create(this.file);
      } catch (err) {
        const locked = /lock/i.test(String(err));
        if (!locked || Date.now() > deadline) {
          throw new Error(
            locked
              ? `The accounts file ${this.file} stayed locked by another process for ${LOCK_WAIT_MS / 1000} s; try again, or check for a stuck process.`
              : `Cannot open the accounts file ${this.file}: ${String(err)}`,
          );
        }
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  private remember(account: Account | undefined): Account | undefined {
    if (account) this.states.set(account.id, account);
    return account;
  }

  async findByEmail(email: string) {
    const rows = await this.withDb((c) => readRows<Row>(c, sqlFile('accounts/select_by_email.sql'), { email }));
    return this.remember(rows[0] && toAccount(rows[0]));
  }

  async getById(id: number) {
    const rows = await this.withDb((c) => readRows<Row>(c, sqlFile('accounts/select_by_id.sql'), { id }));
    return this.remember(rows[0] && toAccount(rows[0]));
  }

  async create(email: string, passwordHash: string) {
    const rows = await this.withDb((c) => readRows<Row>(c, sqlFile('accounts/insert.sql'), { email, password_hash: passwordHash }));
    return this.remember(toAccount(rows[0]!))!;
  }

  async setPassword(id: number, passwordHash: string) {
    await this.withDb((c) => c.run(sqlFile('accounts/set_password.sql'), { id, password_hash: passwordHash }));
    await this.getById(id);
  }

  async setActive(id: number, active: boolean) {
    await this.withDb((c) => c.run(sqlFile('accounts/set_active.sql'), { id, active }));
    await this.getById(id);
  }

  async setRates(id: number, burstRate: string | null, sustainedRate: string | null) {
    await this.withDb((c) => c.run(sqlFile('accounts/set_rates.sql'), { id, burst_rate: burstRate, sustained_rate: sustainedRate }));
    await this.getById(id);
  }

  async bumpTokenVersion(id: number) {
    const rows = await this.withDb((c) => readRows<{ token_version: number }>(c, sqlFile('accounts/bump_token_version.sql'), { id }));
    await this.getById(id);
    return rows[0]!.token_version;
  }

  async tokenState(id: number) {
    return this.states.get(id) ?? (await this.getById(id));
  }

  async signingSecret() {
    if (this.fixedSecret) return this.fixedSecret;
    this.secret ??= await this.withDb(async (c) => {
      await c.run(sqlFile('accounts/secret_insert.sql'), { value: randomBytes(32).toString('base64url') });
      const rows = await readRows<{ value: string }>(c, sqlFile('accounts/secret_select.sql'));
      return rows[0]!.value;
    });
    return this.secret;
  }

  async close() {
    await this.queue;
  }
}
