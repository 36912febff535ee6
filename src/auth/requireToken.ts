import type { RequestHandler } from 'express';
import { HttpError } from '../http/errors.js';
import type { AccountStore } from './accountStore.js';
import type { TokenService } from './tokens.js';

export interface AuthenticatedAccount {
  id: number;
  email: string;
  burstRate: string | null;
  sustainedRate: string | null;
}

const unauthorized = (detail: string) => new HttpError(401, detail, { detail }, { 'WWW-Authenticate': 'Token' });

/** `Authorization: Token <token>` on every /api/ request; 401 bodies as the original service. */
export function requireToken(accounts: AccountStore, tokens: TokenService): RequestHandler {
  return async (req, res, next) => {
    const parts = (req.get('authorization') ?? '').trim().split(/\s+/).filter(Boolean);
    if (parts.length === 0 || parts[0]!.toLowerCase() !== 'token') {
      throw unauthorized('Authentication credentials were not provided.');
    }
    if (parts.length === 1) throw unauthorized('Invalid token header. No credentials provided.');
    if (parts.length > 2) throw unauthorized('Invalid token header. Token string should not contain spaces.');
    const claims = await tokens.read(parts[1]!);
    const state = claims && (await accounts.tokenState(claims.accountId));
    if (!claims || !state || state.tokenVersion !== claims.version) throw unauthorized('Invalid token.');
    if (!state.isActive) throw unauthorized('User inactive or deleted.');
    res.locals.account = {
      id: claims.accountId,
      email: state.email,
      burstRate: state.burstRate,
      sustainedRate: state.sustainedRate,
    } satisfies AuthenticatedAccount;
    next();
  };
}
