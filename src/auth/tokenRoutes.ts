import express, { Router, type Request } from 'express';
import { rateLimit } from 'express-rate-limit';
import { parseRate } from '../config.js';
import { HttpError } from '../http/errors.js';
import { throttledError } from '../http/throttle.js';
import { createThrottleStore } from '../http/throttleStore.js';
import type { Account, AccountStore } from './accountStore.js';
import { burnPasswordCheck, verifyPassword } from './passwords.js';
import type { TokenService } from './tokens.js';

const CREDENTIALS_ERROR = { non_field_errors: ['Unable to log in with provided credentials.'] };

/** Field errors in DRF's shape: {"email": ["This field is required."], ...}. */
function credentials(req: Request): { email: string; password: string } {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const errors: Record<string, string[]> = {};
  const values: Record<string, string> = {};
  for (const field of ['email', 'password']) {
    const v = body[field];
    if (v === undefined || v === null) errors[field] = ['This field is required.'];
    else if (typeof v !== 'string') errors[field] = ['Not a valid string.'];
    else if (v.trim() === '') errors[field] = ['This field may not be blank.'];
    else values[field] = v;
  }
  if (Object.keys(errors).length > 0) throw new HttpError(400, 'Invalid credentials.', errors);
  return { email: values.email!, password: values.password! };
}

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
  return account;
}

/** POST /api-token-auth/ and /api-token-auth/refresh/, throttled per client address. */
export function tokenRoutes(accounts: AccountStore, tokens: TokenService, rate: string): Router {
  const { limit, windowMs } = parseRate(rate);
  const throttle = rateLimit({
    windowMs,
    limit,
    store: createThrottleStore(),
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
