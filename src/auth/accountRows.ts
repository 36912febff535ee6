import type { Account, TokenState } from './accountStore.js';

/** An account as both stores' SQL returns it (sql/accounts/, sql/accounts/postgres/). */
export interface AccountStateRow {
  id: number;
  email: string;
  token_version: number;
  is_active: boolean;
  burst_rate: string | null;
  sustained_rate: string | null;
}

export interface AccountRow extends AccountStateRow {
  password_hash: string;
}

export const toTokenState = (r: AccountStateRow): TokenState => ({
  id: r.id,
  email: r.email,
  tokenVersion: r.token_version,
  isActive: r.is_active,
  burstRate: r.burst_rate,
  sustainedRate: r.sustained_rate,
});

export const toAccount = (r: AccountRow): Account => ({ ...toTokenState(r), passwordHash: r.password_hash });
