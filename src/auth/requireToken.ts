import type { RequestHandler } from 'express';
import type { AuthenticatedAccount } from '../http/account.js';
import { HttpError } from '../http/errors.js';
import type { AccountStore } from './accountStore.js';
import type { TokenService } from './tokens.js';

const unauthorized = (detail: string) => new HttpError(401, detail, { detail }, { 'WWW-Authenticate': 'Token' });

/** The whitespace of Python's bytes.split(), which the original splits the header with. */
const WHITESPACE = /[ \t\n\r\x0b\x0c]+/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Node reads header bytes as latin1: a key with bytes >= 0x80 must still be valid UTF-8. */
function validUtf8(key: string): boolean {
  if (!/[^\x00-\x7f]/.test(key)) return true;
  try {
    utf8.decode(Buffer.from(key, 'latin1'));
    return true;
  } catch {
    return false;
  }
}

/**
 * `Authorization: Token <token>` on every /api/ request; 401 bodies and their order as the
 * original's (reference api.md §1.5). The check is a cached signature check and an in-memory
 * token-version comparison: no store access on the hot path.
 */
export function requireToken(accounts: AccountStore, tokens: TokenService): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers.authorization ?? '';
    const parts = header.split(WHITESPACE).filter(Boolean);
    if (parts.length === 0 || parts[0]!.toLowerCase() !== 'token') {
      throw unauthorized('Authentication credentials were not provided.');
    }
    if (parts.length === 1) throw unauthorized('Invalid token header. No credentials provided.');
    if (parts.length > 2) throw unauthorized('Invalid token header. Token string should not contain spaces.');
    const key = parts[1]!;
    if (!validUtf8(key)) throw unauthorized('Invalid token header. Token string should not contain invalid characters.');
    const claims = await tokens.read(key);
    if (claims === 'expired') throw unauthorized('Token has expired: get a new one from /api-token-auth/.');
    const state = claims && (await accounts.tokenState(claims.accountId, claims.version));
    if (!claims || !state || state.tokenVersion !== claims.version) throw unauthorized('Invalid token.');
    if (!state.isActive) throw unauthorized('User inactive or deleted.');
    res.locals.account = {
      id: state.id,
      email: state.email,
      burstRate: state.burstRate,
      sustainedRate: state.sustainedRate,
    } satisfies AuthenticatedAccount;
    next();
  };
}
