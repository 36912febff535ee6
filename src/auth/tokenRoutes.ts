import express, { Router, type Request } from 'express';
import { rateLimit } from 'express-rate-limit';
import { parseRate } from '../config.js';
import { HttpError } from '../http/errors.js';
import { throttledError } from '../http/throttle.js';
import type { ThrottleStores } from '../http/throttleStore.js';
import type { Account, AccountStore } from './accountStore.js';
import { burnPasswordCheck, hashPassword, needsRehash, verifyPassword } from './passwords.js';
import type { TokenService } from './tokens.js';

const CREDENTIALS_ERROR = { non_field_errors: ['Unable to log in with provided credentials.'] };

/**
 * One field as DRF's CharField reads it: strings, and numbers as their text; the email is trimmed,
 * the password is not (AuthTokenSerializer's `trim_whitespace=False`). A form field sent twice
 * counts with its last value, like Django's QueryDict.
 */
function field(value: unknown, trim: boolean): { value: string } | { error: string } {
  if (Array.isArray(value)) value = value.at(-1);
  if (value === undefined) return { error: 'This field is required.' };
  if (value === null) return { error: 'This field may not be null.' };
  if (typeof value !== 'string' && (typeof value !== 'number' || !Number.isFinite(value))) return { error: 'Not a valid string.' };
  const text = trim ? String(value).trim() : String(value);
  if (text === '') return { error: 'This field may not be blank.' };
  return { value: text };
}

/** The two fields, or a 400 with DRF's field-error dict: {"email": ["This field is required."], ...}. */
function credentials(req: Request): { email: string; password: string } {
  const body: unknown = req.body ?? {};
  if (Array.isArray(body)) {
    throw new HttpError(400, 'Invalid data.', { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] });
  }
  const fields = body as Record<string, unknown>;
  const email = field(fields.email, true);
  const password = field(fields.password, false);
  const errors: Record<string, string[]> = {};
  if ('error' in email) errors.email = [email.error];
  if ('error' in password) errors.password = [password.error];
  if ('error' in email || 'error' in password) throw new HttpError(400, 'Invalid credentials.', errors);
  return { email: email.value, password: password.value };
}

/** The active account with these credentials; the same 400 for unknown email, wrong password, inactive. */
async function authenticate(accounts: AccountStore, req: Request): Promise<Account> {
  const { email, password } = credentials(req);
  const account = await accounts.findByEmail(email);
  if (!account) {
    await burnPasswordCheck(password);
    throw new HttpError(400, 'Unable to log in with provided credentials.', CREDENTIALS_ERROR);
  }
  if (!(await verifyPassword(password, account.passwordHash)) || !account.isActive) {
    throw new HttpError(400, 'Unable to log in with provided credentials.', CREDENTIALS_ERROR);
  }
  if (needsRehash(account.passwordHash)) {
    // Made with older scrypt parameters: store a hash with today's, now that the password is known.
    try {
      await accounts.setPassword(account.id, await hashPassword(password));
    } catch (err) {
      console.warn(`[accounts] could not rehash the password of account ${account.id}: ${String(err)}`);
    }
  }
  return account;
}

/**
 * POST /api-token-auth/ (the account's current token) and /api-token-auth/refresh/ (a new token,
 * revoking the old one at once). JSON or form bodies. Both share one throttle bucket per client
 * address (`req.ip`, so Express's `trust proxy` setting decides what the address is).
 */
export function tokenRoutes(accounts: AccountStore, tokens: TokenService, rate: string, stores: ThrottleStores): Router {
  const { limit, windowMs } = parseRate(rate);
  const throttle = rateLimit({
    windowMs,
    limit,
    store: stores.store('token-auth'),
    standardHeaders: false,
    legacyHeaders: false,
    handler: (req, _res, next) => next(throttledError(req, windowMs)),
  });

  const router = Router();
  const parse = [express.json({ limit: '10kb' }), express.urlencoded({ extended: false, limit: '10kb' })];

  router.post('/api-token-auth/', throttle, ...parse, async (req, res) => {
    const account = await authenticate(accounts, req);
    res.json({ token: await tokens.issue(account.id, account.tokenVersion) });
  });

  router.post('/api-token-auth/refresh/', throttle, ...parse, async (req, res) => {
    const account = await authenticate(accounts, req);
    const version = await accounts.bumpTokenVersion(account.id);
    res.json({ token: await tokens.issue(account.id, version) });
  });

  return router;
}
