/**
 * Where accounts live. The embedded default is a DuckDB file (duckdbAccountStore.ts); a shared
 * store (PostgreSQL) implements the same interface for several replicas, without touching routes.
 */
export interface Account {
  id: number;
  /** Lowercased and trimmed; looked up case-insensitively. */
  email: string;
  /** `scrypt$N$r$p$salt$hash`, see passwords.ts. */
  passwordHash: string;
  /** Part of every API token; bumping it revokes the account's tokens. */
  tokenVersion: number;
  isActive: boolean;
  /** Per-account throttle overrides (`N/sec|min|hour|day`), null for the service defaults. */
  burstRate: string | null;
  sustainedRate: string | null;
}

/** What the token check needs of an account on every request. */
export type TokenState = Pick<Account, 'id' | 'email' | 'tokenVersion' | 'isActive' | 'burstRate' | 'sustainedRate'>;

export interface AccountStore {
  /** Case-insensitive, surrounding spaces ignored. Always reads the store (logins, the CLI). */
  findByEmail(email: string): Promise<Account | undefined>;
  getById(id: number): Promise<Account | undefined>;
  /** Fails if the email is taken. */
  create(email: string, passwordHash: string): Promise<Account>;
  setPassword(id: number, passwordHash: string): Promise<void>;
  setActive(id: number, active: boolean): Promise<void>;
  setRates(id: number, burstRate: string | null, sustainedRate: string | null): Promise<void>;
  /** Revokes the account's current token; returns the new version. */
  bumpTokenVersion(id: number): Promise<number>;
  /**
   * The account's token version and state, for the token check on every request. Must be cheap:
   * implementations keep it in memory, refresh it on their own writes, and read the store only
   * for an account they do not know yet (one created by another process), or when the token
   * names a version newer than the one they know (`tokenVersion`: issued by another process just
   * now), so that a fresh token works at once everywhere.
   */
  tokenState(id: number, tokenVersion?: number): Promise<TokenState | undefined>;
  /** The account's current token version (`tokenState(id)?.tokenVersion`). */
  tokenVersion(id: number): Promise<number | undefined>;
  /** The HMAC secret for tokens, created once and shared by every process using the store. */
  signingSecret(): Promise<string>;
  /** Resolves when the store answers (for /readyz); rejects while it does not. */
  ping(): Promise<void>;
  /** Waits for operations under way; the store may not be used afterwards. */
  close(): Promise<void>;
}
