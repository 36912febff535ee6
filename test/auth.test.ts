import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import express from 'express';
import { SignJWT } from 'jose';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAuth, type Auth } from '../src/auth/index.js';
import { hashPassword, verifyPassword } from '../src/auth/passwords.js';
import { loadConfig, ROOT } from '../src/config.js';
import { errorHandler } from '../src/http/errors.js';
import { tempAccountsDb } from './helpers.js';

const run = promisify(execFile);

async function authApp(env: Record<string, string> = {}) {
  const config = loadConfig({ ...process.env, ACCOUNTS_DB: tempAccountsDb(), TOKEN_AUTH_RATE: '1000/min', ...env });
  const auth = await createAuth(config);
  const app = express();
  app.use(auth.tokenRouter);
  app.use('/api', auth.requireToken);
  app.get('/api/ping/', (_req, res) => res.json({ account: res.locals.account }));
  app.use(errorHandler);
  return { app, auth, config };
}

let app: express.Express;
let auth: Auth;

beforeAll(async () => {
  ({ app, auth } = await authApp());
  await auth.accounts.create('Alice@Example.com', await hashPassword('correct horse'));
});

const ping = (header?: string) => {
  const r = request(app).get('/api/ping/');
  return header === undefined ? r : r.set('Authorization', header);
};

describe('passwords', () => {
  it('hashes with scrypt and a random salt, and verifies', async () => {
    const a = await hashPassword('s3cret-pass');
    const b = await hashPassword('s3cret-pass');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('s3cret-pass', a)).toBe(true);
    expect(await verifyPassword('s3cret-pasS', a)).toBe(false);
    expect(await verifyPassword('x', 'garbage')).toBe(false);
  });
});

describe('token endpoints', () => {
  it('returns the current token for JSON and form credentials, the same each time', async () => {
    const a = await request(app).post('/api-token-auth/').send({ email: 'alice@example.com', password: 'correct horse' }).expect(200);
    const b = await request(app).post('/api-token-auth/').type('form').send({ email: ' ALICE@example.com', password: 'correct horse' }).expect(200);
    expect(Object.keys(a.body)).toEqual(['token']);
    expect(a.body.token).toBe(b.body.token);
    const res = await ping(`Token ${a.body.token}`).expect(200);
    expect(res.body.account).toMatchObject({ email: 'alice@example.com', burstRate: null, sustainedRate: null });
  });

  it('answers 400 for wrong credentials and for missing or blank fields', async () => {
    const wrong = { non_field_errors: ['Unable to log in with provided credentials.'] };
    expect((await request(app).post('/api-token-auth/').send({ email: 'alice@example.com', password: 'nope' }).expect(400)).body).toEqual(wrong);
    expect((await request(app).post('/api-token-auth/').send({ email: 'bob@example.com', password: 'nope' }).expect(400)).body).toEqual(wrong);
    expect((await request(app).post('/api-token-auth/').send({}).expect(400)).body).toEqual({
      email: ['This field is required.'],
      password: ['This field is required.'],
    });
    expect((await request(app).post('/api-token-auth/').send({ email: ' ', password: 'x' }).expect(400)).body).toEqual({
      email: ['This field may not be blank.'],
    });
    const bad = await request(app).post('/api-token-auth/').set('Content-Type', 'application/json').send('{"email":').expect(400);
    expect(bad.body.detail).toMatch(/not valid JSON/);
  });

  it('refresh issues a new token and revokes the old one at once', async () => {
    const { app: a2, auth: auth2 } = await authApp();
    await auth2.accounts.create('carol@example.com', await hashPassword('password-1'));
    const creds = { email: 'carol@example.com', password: 'password-1' };
    const old = (await request(a2).post('/api-token-auth/').send(creds).expect(200)).body.token;
    await request(a2).get('/api/ping/').set('Authorization', `Token ${old}`).expect(200);
    const fresh = (await request(a2).post('/api-token-auth/refresh/').send(creds).expect(200)).body.token;
    expect(fresh).not.toBe(old);
    expect((await request(a2).get('/api/ping/').set('Authorization', `Token ${old}`).expect(401)).body).toEqual({ detail: 'Invalid token.' });
    await request(a2).get('/api/ping/').set('Authorization', `Token ${fresh}`).expect(200);
    expect((await request(a2).post('/api-token-auth/').send(creds).expect(200)).body.token).toBe(fresh);
    await request(a2).post('/api-token-auth/refresh/').send({ ...creds, password: 'wrong' }).expect(400);
  });

  it('throttles the token endpoints per client address with Retry-After', async () => {
    const { app: a3 } = await authApp({ TOKEN_AUTH_RATE: '3/min' });
    for (let i = 0; i < 3; i++) await request(a3).post('/api-token-auth/').send({ email: 'x@example.com', password: 'y' }).expect(400);
    const res = await request(a3).post('/api-token-auth/refresh/').send({ email: 'x@example.com', password: 'y' }).expect(429);
    const wait = Number(res.headers['retry-after']);
    expect(Number.isInteger(wait)).toBe(true);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(res.body).toEqual({ detail: `Request was throttled. Expected available in ${wait} second${wait === 1 ? '' : 's'}.` });
  });
});

describe('token check on /api/', () => {
  it('answers each malformed header with its own 401 body and WWW-Authenticate', async () => {
    const cases: [string | undefined, string][] = [
      [undefined, 'Authentication credentials were not provided.'],
      ['Bearer abc', 'Authentication credentials were not provided.'],
      ['Token', 'Invalid token header. No credentials provided.'],
      ['Token a b', 'Invalid token header. Token string should not contain spaces.'],
      ['Token abc', 'Invalid token.'],
    ];
    for (const [header, detail] of cases) {
      const res = await ping(header).expect(401);
      expect(res.body).toEqual({ detail });
      expect(res.headers['www-authenticate']).toBe('Token');
    }
  });

  it('accepts the scheme case-insensitively', async () => {
    const token = (await request(app).post('/api-token-auth/').send({ email: 'alice@example.com', password: 'correct horse' })).body.token;
    await ping(`token ${token}`).expect(200);
  });

  it('rejects tampered tokens, tokens of another secret and of unknown accounts', async () => {
    const token: string = (await request(app).post('/api-token-auth/').send({ email: 'alice@example.com', password: 'correct horse' })).body.token;
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, ver: claims.ver + 1 })).toString('base64url');
    await ping(`Token ${h}.${forged}.${s}`).expect(401);
    const other = await new SignJWT({ ver: 1 }).setProtectedHeader({ alg: 'HS256' }).setSubject('1').sign(new TextEncoder().encode('x'.repeat(40)));
    await ping(`Token ${other}`).expect(401);
    const ghost = await auth.tokens.issue(999, 1);
    expect((await ping(`Token ${ghost}`).expect(401)).body).toEqual({ detail: 'Invalid token.' });
  });

  it('rejects inactive accounts', async () => {
    const acct = await auth.accounts.create('dave@example.com', await hashPassword('password-d'));
    const token = await auth.tokens.issue(acct.id, acct.tokenVersion);
    await ping(`Token ${token}`).expect(200);
    await auth.accounts.setActive(acct.id, false);
    expect((await ping(`Token ${token}`).expect(401)).body).toEqual({ detail: 'User inactive or deleted.' });
    await request(app).post('/api-token-auth/').send({ email: 'dave@example.com', password: 'password-d' }).expect(400);
  });

  it('uses TOKEN_SECRET when set, so replicas agree', async () => {
    const secret = 's'.repeat(40);
    const { auth: a } = await authApp({ TOKEN_SECRET: secret });
    expect(await a.accounts.signingSecret()).toBe(secret);
  });
});

describe('make user (scripts/user.ts)', () => {
  it('creates, then resets, printing a working token last, while the server uses the store', async () => {
    const { app: srv, config } = await authApp();
    const env = { ...process.env, ACCOUNTS_DB: config.ACCOUNTS_DB };
    const tsx = path.join(ROOT, 'node_modules', '.bin', 'tsx');
    const script = path.join(ROOT, 'scripts', 'user.ts');
    const created = await run(tsx, [script, '--email', 'erin@example.com', '--password', 'first-password'], { env });
    expect(created.stdout).toMatch(/Created account/);
    const token = created.stdout.trim().split('\n').pop()!;
    await request(srv).get('/api/ping/').set('Authorization', `Token ${token}`).expect(200);
    await request(srv).post('/api-token-auth/').send({ email: 'erin@example.com', password: 'first-password' }).expect(200);

    const reset = await run(tsx, [script, '--email', 'erin@example.com', '--password', 'second-password', '--burst-rate', '100/min'], { env });
    expect(reset.stdout).toMatch(/Reset the password/);
    expect(reset.stdout.trim().split('\n').pop()).toBe(token);
    await request(srv).post('/api-token-auth/').send({ email: 'erin@example.com', password: 'first-password' }).expect(400);
    await request(srv).post('/api-token-auth/').send({ email: 'erin@example.com', password: 'second-password' }).expect(200);

    await expect(run(tsx, [script, '--email', 'not-an-email', '--password', 'x'], { env })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/EMAIL is not a valid email address/),
    });
  }, 60_000);
});
