/**
 * Where accounts live. The embedded default is a DuckDB file (duckdbAccountStore.ts); a shared
 * store (PostgreSQL) implements the same interface for several replicas, without touching routes.
 */
export interface Account {
  id: number;
  email: string;
  passwordHash: string;
  tokenVersion: number;
  isActive: boolean;
  /** Per-account throttle overrides (`N/sec|min|hour|day`), null for the service defaults. */
  burstRate: string | null;
  sustainedRate: string | null;
}

export interface AccountStore {
  findByEmail(email: string): Promise<Account | undefined>;
  getById(id: number): Promise<Account | undefined>;
  create(email: string, passwordHash: string): Promise<Account>;
  setPassword(id: number, passwordHash: string): Promise<void>;
  setActive(id: number, active: boolean): Promise<void>;
  setRates(id: number, burstRate: string | null, sustainedRate: string | null): Promise<void>;
  /** Revokes the account's current token; returns the new version. */
  bumpTokenVersion(id: number): Promise<number>;
  /**
   * The account's current token version and state, for the token check on every request. Must be
   * cheap: implementations keep it in memory and refresh it on their own writes.
   */
  tokenState(id: number): Promise<Pick<Account, 'tokenVersion' | 'isActive' | 'email' | 'burstRate' | 'sustainedRate'> | undefined>;
  /** The HMAC secret for tokens, created once and shared by every process using the store. */
  signingSecret(): Promise<string>;
  close(): Promise<void>;
}
