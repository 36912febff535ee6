import { jwtVerify, SignJWT } from 'jose';

export interface TokenClaims {
  accountId: number;
  version: number;
  /** Expiry in epoch seconds, for tokens issued with a lifetime (TOKEN_TTL). */
  expiresAt?: number;
}

/** What a presented token is: ours and current (its claims), ours but past its expiry, or not ours. */
export type TokenReading = TokenClaims | 'expired' | undefined;

const MAX_CACHED = 10_000;

/**
 * API tokens are HS256 JWTs carrying the account id (`sub`) and its token version (`ver`). By
 * default they have no expiry and no issue time, so issuing twice for the same version gives the
 * same string ("the account's current token"), and bumping the version in the store revokes every
 * earlier token at once. With a lifetime (TOKEN_TTL) they also carry `iat` and `exp`. Nothing about
 * a token is stored; jose checks the HMAC in constant time.
 */
export class TokenService {
  private readonly key: Uint8Array;
  /**
   * Tokens whose signature was checked already. A well-signed token's claims never change
   * (revocation is the store's version check; expiry is checked on every read), so this only saves
   * the HMAC on the hot path; only well-signed tokens get in, so it cannot be flooded without the
   * secret.
   */
  private readonly verified = new Map<string, TokenClaims>();

  constructor(
    secret: string,
    private readonly ttlSeconds?: number,
  ) {
    if (secret.length < 32) throw new Error('The token signing secret must have at least 32 characters.');
    this.key = new TextEncoder().encode(secret);
  }

  issue(accountId: number, version: number): Promise<string> {
    const jwt = new SignJWT({ ver: version }).setProtectedHeader({ alg: 'HS256' }).setSubject(String(accountId));
    if (this.ttlSeconds !== undefined) {
      const now = Math.floor(Date.now() / 1000);
      jwt.setIssuedAt(now).setExpirationTime(now + this.ttlSeconds);
    }
    return jwt.sign(this.key);
  }

  /** What the token is (see TokenReading). */
  async read(token: string): Promise<TokenReading> {
    const known = this.verified.get(token);
    if (known) return known.expiresAt !== undefined && Date.now() / 1000 >= known.expiresAt ? 'expired' : known;
    return this.verify(token);
  }

  /** Like `read`, always checking the signature (no cache); for measurements and tests. */
  async verify(token: string): Promise<TokenReading> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] }));
    } catch (err) {
      // jose checks the signature before the claims: an expired token is a genuine one of ours.
      return (err as { code?: string }).code === 'ERR_JWT_EXPIRED' ? 'expired' : undefined;
    }
    const { sub, ver, exp } = payload;
    if (typeof sub !== 'string' || !/^[1-9]\d{0,9}$/.test(sub) || typeof ver !== 'number' || !Number.isSafeInteger(ver)) return undefined;
    const claims: TokenClaims = { accountId: Number(sub), version: ver, ...(typeof exp === 'number' ? { expiresAt: exp } : {}) };
    if (this.verified.size >= MAX_CACHED) this.verified.clear();
    this.verified.set(token, claims);
    return claims;
  }
}
