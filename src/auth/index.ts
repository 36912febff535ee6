import type { RequestHandler, Router } from 'express';
import type { Config } from '../config.js';
import type { AccountStore } from './accountStore.js';
import { DuckDBAccountStore } from './duckdbAccountStore.js';
import { requireToken } from './requireToken.js';
import { tokenRoutes } from './tokenRoutes.js';
import { TokenService } from './tokens.js';

export interface Auth {
  accounts: AccountStore;
  tokens: TokenService;
  requireToken: RequestHandler;
  tokenRouter: Router;
  close(): Promise<void>;
}

/** Accounts, tokens and the two auth entry points, wired from the configuration. */
export async function createAuth(config: Pick<Config, 'ACCOUNTS_DB' | 'TOKEN_SECRET' | 'TOKEN_AUTH_RATE'>): Promise<Auth> {
  const accounts = new DuckDBAccountStore(config.ACCOUNTS_DB, config.TOKEN_SECRET);
  const tokens = new TokenService(await accounts.signingSecret());
  return {
    accounts,
    tokens,
    requireToken: requireToken(accounts, tokens),
    tokenRouter: tokenRoutes(accounts, tokens, config.TOKEN_AUTH_RATE),
    close: () => accounts.close(),
  };
}
