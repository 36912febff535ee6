import { jwtVerify, SignJWT } from 'jose';

export interface TokenClaims {
  accountId: number;
  version: number;
}

const MAX_CACHED = 10_000;

/**
 * API tokens are HS256 JWTs carrying the account id (`sub`) and its token version (`ver`). They
 * have no expiry and no issue time, so issuing twice for the same version gives the same string
 * ("the account's current token"), and bumping the version in the store revokes every earlier
 * token at once. Nothing about a token is stored; jose checks the HMAC in constant time.
 */
export class TokenService {
  private readonly key: Uint8Array;
  /**
   * Tokens whose signature was checked already. A well-signed token's claims never change
   * (revocation is the store's version check), so this only saves the HMAC on the hot path; only
   * well-signed tokens get in, so it cannot be flooded without the secret.
   */
  private readonly verified = new Map<string, TokenClaims>();

  constructor(secret: string) {
    if (secret.length < 32) throw new Error('The token signing secret must have at least 32 characters.');
    this.key = new TextEncoder().encode(secret);
  }

  issue(accountId: number, version: number): Promise<string> {
    return new SignJWT({ ver: version }).setProtectedHeader({ alg: 'HS256' }).setSubject(String(accountId)).sign(this.key);
  }

  /** The claims of a well-signed token of ours, or undefined. */
  async read(token: string): Promise<TokenClaims | undefined> {
    const known = this.verified.get(token);
    if (known) return known;
    return this.verify(token);
  }

  /** Like `read`, always checking the signature (no cache); for measurements and tests. */
  async verify(token: string): Promise<TokenClaims | undefined> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] }));
    } catch {
      return undefined;
    }
    const { sub, ver } = payload;
    if (typeof sub !== 'string' || !/^[1-9]\d{0,9}$/.test(sub) || typeof ver !== 'number' || !Number.isSafeInteger(ver)) return undefined;
    const claims = { accountId: Number(sub), version: ver };
    if (this.verified.size >= MAX_CACHED) this.verified.clear();
    this.verified.set(token, claims);
    return claims;
  }
}
