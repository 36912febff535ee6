import { jwtVerify, SignJWT } from 'jose';

/**
 * API tokens are HS256 JWTs carrying the account id and its token version. They have no expiry
 * and no issue time, so issuing twice for the same version gives the same string ("the current
 * token"), and bumping the version in the store revokes every earlier token at once.
 */
export class TokenService {
  private readonly key: Uint8Array;
  /**
   * Signature checks already done. A well-signed token's claims never change (revocation is the
   * store's version check), so this only saves the HMAC on the hot path.
   */
  private readonly verified = new Map<string, { accountId: number; version: number }>();

  constructor(secret: string) {
    this.key = new TextEncoder().encode(secret);
  }

  issue(accountId: number, version: number): Promise<string> {
    return new SignJWT({ ver: version }).setProtectedHeader({ alg: 'HS256' }).setSubject(String(accountId)).sign(this.key);
  }

  /** The claims of a well-signed token, or undefined. */
  async read(token: string): Promise<{ accountId: number; version: number } | undefined> {
    const known = this.verified.get(token);
    if (known) return known;
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] });
      const accountId = Number(payload.sub);
      const version = payload.ver;
      if (!Number.isInteger(accountId) || typeof version !== 'number') return undefined;
      if (this.verified.size >= 10_000) this.verified.clear();
      this.verified.set(token, { accountId, version });
      return { accountId, version };
    } catch {
      return undefined;
    }
  }
}
