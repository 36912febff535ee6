import type { RequestHandler, Router } from 'express';
import type { Config } from '../config.js';
import type { AccountStore } from './accountStore.js';
import { DuckDBAccountStore } from './duckdbAccountStore.js';
import { requireToken } from './requireToken.js';
import { tokenRoutes } from './tokenRoutes.js';
import { TokenService } from './tokens.js';
import { memoryThrottleStores, type ThrottleStores } from '../http/throttleStore.js';

export type { Account, AccountStore, TokenState } from './accountStore.js';
export { TokenService, type TokenClaims } from './tokens.js';

export interface Auth {
  accounts: AccountStore;
  tokens: TokenService;
  /** Express middleware for /api/: 401 unless `Authorization: Token <valid token>`; sets res.locals.account. */
  requireToken: RequestHandler;
  /** POST /api-token-auth/ and /api-token-auth/refresh/, with their body parsers and throttle. */
  tokenRouter: Router;
  close(): Promise<void>;
}

/**
 * The account store the configuration names: PostgreSQL with ACCOUNTS_URL (its schema created or
 * upgraded first), else the embedded DuckDB file ACCOUNTS_DB.
 */
export async function openAccountStore(config: Pick<Config, 'ACCOUNTS_DB' | 'ACCOUNTS_URL' | 'TOKEN_SECRET'>): Promise<AccountStore> {
  if (!config.ACCOUNTS_URL) return new DuckDBAccountStore(config.ACCOUNTS_DB, { fixedSecret: config.TOKEN_SECRET });
  // Loaded only here: pg costs 0.1 s of CPU at the start of every process with the embedded store.
  const { PostgresAccountStore } = await import('./postgresAccountStore.js');
  // loadConfig refuses ACCOUNTS_URL without a TOKEN_SECRET.
  const store = new PostgresAccountStore(config.ACCOUNTS_URL, config.TOKEN_SECRET!);
  try {
    await store.migrate();
  } catch (err) {
    await store.close().catch(() => undefined);
    const reason = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    throw new Error(`Cannot prepare the accounts schema in PostgreSQL (ACCOUNTS_URL): ${reason}`);
  }
  return store;
}

/**
 * Accounts, tokens and the two auth entry points, wired from the configuration. Reads (or creates)
 * the signing secret in the accounts store unless TOKEN_SECRET is set, so this fails early when
 * the accounts file cannot be opened.
 */
export async function createAuth(
  config: Pick<Config, 'ACCOUNTS_DB' | 'ACCOUNTS_URL' | 'TOKEN_SECRET' | 'TOKEN_AUTH_RATE' | 'TOKEN_TTL'>,
  throttleStores: ThrottleStores = memoryThrottleStores(),
): Promise<Auth> {
  const accounts = await openAccountStore(config);
  const tokens = new TokenService(await accounts.signingSecret(), config.TOKEN_TTL);
  return {
    accounts,
    tokens,
    requireToken: requireToken(accounts, tokens),
    tokenRouter: tokenRoutes(accounts, tokens, config.TOKEN_AUTH_RATE, throttleStores),
    close: () => accounts.close(),
  };
}
