import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import express from 'express';
import { SignJWT, UnsecuredJWT } from 'jose';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBAccountStore } from '../src/auth/duckdbAccountStore.js';
import { createAuth, type Auth } from '../src/auth/index.js';
import { hashPassword, needsRehash, SCRYPT_PARAMS, verifyPassword } from '../src/auth/passwords.js';
import { loadConfig, ROOT, type Config } from '../src/config.js';
import { errorHandler } from '../src/http/errors.js';
import { throttledDetail } from '../src/http/throttleStore.js';
import { compiled } from './support/compiled.js';

const run = promisify(execFile);
const USER_SCRIPT = compiled('src/cli/user.ts');
/** Cheap parameters for accounts whose password the tests never log in with. */
const CHEAP = { N: 2 ** 10, r: 8, p: 1 };

const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'auth-test-'));
let fileCount = 0;
const tempAccountsDb = () => path.join(tmpDir, `accounts-${fileCount++}.duckdb`);
const opened: Auth[] = [];

afterAll(async () => {
  await Promise.all(opened.map((a) => a.close()));
  fs.rmSync(tmpDir, { recursive: true, force: true });
});

/** The token routes, a dummy /api/ping/ behind requireToken, and the app's error handler. */
async function authApp(env: Record<string, string> = {}) {
  const config: Config = loadConfig({ ACCOUNTS_DB: tempAccountsDb(), TOKEN_AUTH_RATE: '1000/min', ...env });
  const auth = await createAuth(config);
  opened.push(auth);
  const app = express();
  app.use(auth.tokenRouter);
  app.use('/api', auth.requireToken);
  app.get('/api/ping/', (_req, res) => res.json({ account: res.locals.account }));
  app.use(errorHandler);
  return { app, auth, config };
}

/** Another process holding the accounts file open (DuckDB's write lock) until it is told to stop. */
async function holdFileLock(file: string): Promise<ChildProcess> {
  const code = `
    import { DuckDBInstance } from '@duckdb/node-api';
    const db = await DuckDBInstance.create(process.argv[1]);
    console.log('held');
    process.stdin.on('data', () => { db.closeSync(); console.log('released'); process.exit(0); });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code, file], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (c) => reject(new Error(`lock holder exited with ${c}`)));
  });
  return child;
}
const release = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.stdin!.write('x');
  });

let app: express.Express;
let auth: Auth;
const ALICE = { email: 'alice@example.com', password: 'correct horse' };

beforeAll(async () => {
  ({ app, auth } = await authApp());
  await auth.accounts.create(' Alice@Example.com ', await hashPassword(ALICE.password));
});

const ping = (header?: string, target: express.Express = app) => {
  const r = request(target).get('/api/ping/');
  return header === undefined ? r : r.set('Authorization', header);
};
const obtain = (body: object | string, target: express.Express = app) => request(target).post('/api-token-auth/').send(body);

describe('passwords', () => {
  it('hashes with scrypt, a random salt and the parameters stored alongside', async () => {
    const a = await hashPassword('s3cret-pass');
    const b = await hashPassword('s3cret-pass');
    const { N, r, p } = SCRYPT_PARAMS;
    expect(a).toMatch(new RegExp(`^scrypt\\$${N}\\$${r}\\$${p}\\$[A-Za-z0-9+/=]{24}\\$[A-Za-z0-9+/=]{44}$`));
    expect(a).not.toBe(b);
    expect(await verifyPassword('s3cret-pass', a)).toBe(true);
    expect(await verifyPassword('s3cret-pasS', a)).toBe(false);
    for (const bad of ['garbage', 'scrypt$3$8$1$c2FsdA==$aGFzaA==', 'scrypt$1073741824$8$1$c2FsdA==$aGFzaA==', '']) {
      expect(await verifyPassword('x', bad)).toBe(false);
    }
  });

  it('verifies hashes made with other parameters, and says they need a rehash', async () => {
    const old = await hashPassword('legacy-pass', CHEAP);
    expect(old.startsWith(`scrypt$${CHEAP.N}$8$1$`)).toBe(true);
    expect(await verifyPassword('legacy-pass', old)).toBe(true);
    expect(needsRehash(old)).toBe(true);
    expect(needsRehash(await hashPassword('x'))).toBe(false);
  });
});

describe('POST /api-token-auth/', () => {
  it('returns the current token for JSON and form credentials, the same each time', async () => {
    const a = await obtain(ALICE).expect(200);
    const b = await request(app).post('/api-token-auth/').type('form').send({ email: ' ALICE@example.com', password: ALICE.password }).expect(200);
    expect(a.body).toEqual({ token: expect.any(String) });
    expect(b.body.token).toBe(a.body.token);
    const res = await ping(`Token ${a.body.token}`).expect(200);
    expect(res.body.account).toEqual({ id: 1, email: 'alice@example.com', burstRate: null, sustainedRate: null });
  });

  it('answers 400 non_field_errors for a wrong password or an unknown email', async () => {
    const wrong = { non_field_errors: ['Unable to log in with provided credentials.'] };
    expect((await obtain({ ...ALICE, password: 'nope' }).expect(400)).body).toEqual(wrong);
    expect((await obtain({ ...ALICE, email: 'bob@example.com' }).expect(400)).body).toEqual(wrong);
    // The password is not trimmed (DRF's trim_whitespace=False): spaces are a wrong password, not blank.
    expect((await obtain({ ...ALICE, password: '   ' }).expect(400)).body).toEqual(wrong);
  });

  it('answers 400 field errors for missing, blank, null or non-string fields', async () => {
    const cases: [object, object][] = [
      [{}, { email: ['This field is required.'], password: ['This field is required.'] }],
      [{ email: 'alice@example.com' }, { password: ['This field is required.'] }],
      [{ email: ' ', password: 'x' }, { email: ['This field may not be blank.'] }],
      [{ email: '', password: '' }, { email: ['This field may not be blank.'], password: ['This field may not be blank.'] }],
      [{ email: null, password: 'x' }, { email: ['This field may not be null.'] }],
      [{ email: { a: 1 }, password: true }, { email: ['Not a valid string.'], password: ['Not a valid string.'] }],
    ];
    for (const [body, errors] of cases) expect((await obtain(body).expect(400)).body).toEqual(errors);
    expect((await request(app).post('/api-token-auth/').type('form').send('password=x').expect(400)).body).toEqual({
      email: ['This field is required.'],
    });
    expect((await obtain([1, 2]).expect(400)).body).toEqual({ non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] });
  });

  it('answers malformed JSON with a 400 JSON body', async () => {
    const bad = await request(app).post('/api-token-auth/').set('Content-Type', 'application/json').send('{"email":').expect(400);
    expect(bad.headers['content-type']).toMatch(/^application\/json/);
    expect(bad.body.detail).toMatch(/not valid JSON/);
  });

  it('refuses inactive accounts', async () => {
    const { app: a, auth: au } = await authApp();
    const acct = await au.accounts.create('dave@example.com', await hashPassword('password-d'));
    const token = (await obtain({ email: 'dave@example.com', password: 'password-d' }, a).expect(200)).body.token;
    await au.accounts.setActive(acct.id, false);
    expect((await obtain({ email: 'dave@example.com', password: 'password-d' }, a).expect(400)).body).toEqual({
      non_field_errors: ['Unable to log in with provided credentials.'],
    });
    expect((await ping(`Token ${token}`, a).expect(401)).body).toEqual({ detail: 'User inactive or deleted.' });
    await au.accounts.setActive(acct.id, true);
    await ping(`Token ${token}`, a).expect(200);
  });

  it('rehashes a password stored with older parameters on a successful login', async () => {
    const { app: a, auth: au } = await authApp();
    const acct = await au.accounts.create('old@example.com', await hashPassword('old-params', CHEAP));
    await obtain({ email: 'old@example.com', password: 'old-params' }, a).expect(200);
    const stored = (await au.accounts.getById(acct.id))!.passwordHash;
    expect(needsRehash(stored)).toBe(false);
    expect(await verifyPassword('old-params', stored)).toBe(true);
  });
});

describe('POST /api-token-auth/refresh/ and password reset', () => {
  it('refresh issues a new token and revokes the old one at once', async () => {
    const { app: a, auth: au } = await authApp();
    await au.accounts.create('carol@example.com', await hashPassword('password-1'));
    const creds = { email: 'carol@example.com', password: 'password-1' };
    const old = (await obtain(creds, a).expect(200)).body.token;
    await ping(`Token ${old}`, a).expect(200);
    const fresh = (await request(a).post('/api-token-auth/refresh/').type('form').send(creds).expect(200)).body.token;
    expect(fresh).not.toBe(old);
    expect((await ping(`Token ${old}`, a).expect(401)).body).toEqual({ detail: 'Invalid token.' });
    await ping(`Token ${fresh}`, a).expect(200);
    expect((await obtain(creds, a).expect(200)).body.token).toBe(fresh);
    await request(a).post('/api-token-auth/refresh/').send({ ...creds, password: 'wrong' }).expect(400);
    await ping(`Token ${fresh}`, a).expect(200);
  });

  it('a password reset through the store changes the password, not the token', async () => {
    const { app: a, auth: au } = await authApp();
    const acct = await au.accounts.create('pat@example.com', await hashPassword('first-pass'));
    const token = (await obtain({ email: 'pat@example.com', password: 'first-pass' }, a).expect(200)).body.token;
    await au.accounts.setPassword(acct.id, await hashPassword('second-pass'));
    await obtain({ email: 'pat@example.com', password: 'first-pass' }, a).expect(400);
    expect((await obtain({ email: 'PAT@example.com', password: 'second-pass' }, a).expect(200)).body.token).toBe(token);
    await ping(`Token ${token}`, a).expect(200);
  });
});

describe('token endpoint throttle', () => {
  it('allows TOKEN_AUTH_RATE requests per address over both endpoints, then 429 with Retry-After', async () => {
    const { app: a } = await authApp({ TOKEN_AUTH_RATE: '3/min' });
    await obtain({}, a).expect(400);
    await request(a).post('/api-token-auth/refresh/').send({}).expect(400);
    await obtain({}, a).expect(400);
    const res = await obtain(ALICE, a).expect(429);
    const wait = Number(res.headers['retry-after']);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(res.body).toEqual({ detail: `Request was throttled. Expected available in ${wait} seconds.` });
    await request(a).post('/api-token-auth/refresh/').send(ALICE).expect(429);
    // The API itself is not throttled by it.
    await ping(undefined, a).expect(401);
  });

  it('words the wait like DRF', () => {
    expect(throttledDetail(1)).toBe('Request was throttled. Expected available in 1 second.');
    expect(throttledDetail(43)).toBe('Request was throttled. Expected available in 43 seconds.');
  });
});

describe('token check on /api/', () => {
  it('answers each missing or malformed header with its own 401 body and WWW-Authenticate: Token', async () => {
    const cases: [string | undefined, string][] = [
      [undefined, 'Authentication credentials were not provided.'],
      ['', 'Authentication credentials were not provided.'],
      ['Bearer abc', 'Authentication credentials were not provided.'],
      ['Tokenabc', 'Authentication credentials were not provided.'],
      ['Token', 'Invalid token header. No credentials provided.'],
      ['token   ', 'Invalid token header. No credentials provided.'],
      ['Token a b', 'Invalid token header. Token string should not contain spaces.'],
      ['Token \xff\xfe', 'Invalid token header. Token string should not contain invalid characters.'],
      ['Token caf\xc3\xa9', 'Invalid token.'],
      ['Token abc', 'Invalid token.'],
      ['Token a.b.c', 'Invalid token.'],
    ];
    for (const [header, detail] of cases) {
      const res = await ping(header).expect(401);
      expect([header, res.body]).toEqual([header, { detail }]);
      expect(res.headers['www-authenticate']).toBe('Token');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
  });

  it('accepts the scheme in any case and extra whitespace around the key', async () => {
    const { token } = (await obtain(ALICE)).body;
    await ping(`token ${token}`).expect(200);
    await ping(`TOKEN\t ${token}  `).expect(200);
  });

  it('rejects tampered tokens, tokens signed with another secret, unsigned ones and unknown accounts', async () => {
    const token: string = (await obtain(ALICE)).body.token;
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: '2' })).toString('base64url');
    const flipped = s!.slice(0, -2) + (s!.at(-2) === 'A' ? 'B' : 'A') + s!.at(-1);
    const other = await new SignJWT({ ver: claims.ver }).setProtectedHeader({ alg: 'HS256' }).setSubject('1').sign(new TextEncoder().encode('x'.repeat(43)));
    const unsigned = new UnsecuredJWT({ ver: claims.ver }).setSubject('1').encode();
    for (const bad of [`${h}.${forged}.${s}`, `${h}.${p}.${flipped}`, `${h}.${p}.`, other, unsigned]) {
      expect((await ping(`Token ${bad}`).expect(401)).body).toEqual({ detail: 'Invalid token.' });
    }
    const ghost = await auth.tokens.issue(999, 1);
    expect((await ping(`Token ${ghost}`).expect(401)).body).toEqual({ detail: 'Invalid token.' });
    await ping(`Token ${token}`).expect(200);
  });

  it('signs with TOKEN_SECRET when set, else with a secret kept in the accounts file across restarts', async () => {
    const secret = 's'.repeat(40);
    const { auth: fixed } = await authApp({ TOKEN_SECRET: secret });
    expect(await fixed.accounts.signingSecret()).toBe(secret);

    const { auth: first, config } = await authApp();
    const acct = await first.accounts.create('restart@example.com', await hashPassword('x', CHEAP));
    const token = await first.tokens.issue(acct.id, acct.tokenVersion);
    await first.close();
    const again = await createAuth(config);
    opened.push(again);
    expect(await again.accounts.signingSecret()).toBe(await first.accounts.signingSecret());
    expect((await again.accounts.signingSecret()).length).toBeGreaterThanOrEqual(43);
    expect(await again.tokens.issue(acct.id, acct.tokenVersion)).toBe(token);
  });

  it('knows accounts created by another process, and sees its changes after the refresh interval', async () => {
    const file = tempAccountsDb();
    const server = new DuckDBAccountStore(file, { refreshMs: 100 });
    const other = new DuckDBAccountStore(file);
    expect(await server.tokenState(1)).toBeUndefined(); // loads the (empty) states
    const acct = await other.create('late@example.com', await hashPassword('x', CHEAP));
    expect(acct.id).toBe(1);
    // Remembered as missing for a few seconds, so the store is not read on every request...
    expect(await server.tokenState(1)).toBeUndefined();
    const acct2 = await other.create('later@example.com', await hashPassword('x', CHEAP));
    // ...but an id never asked about is read at once.
    expect(await server.tokenState(acct2.id)).toMatchObject({ email: 'later@example.com', tokenVersion: 1 });
    await other.setRates(acct2.id, '100/min', null);
    await other.bumpTokenVersion(acct2.id);
    expect(await server.tokenVersion(acct2.id)).toBe(1);
    // Each call after 100 ms starts a background refresh and answers from memory meanwhile.
    const deadline = Date.now() + 5_000;
    while ((await server.tokenVersion(acct2.id)) !== 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await server.tokenState(acct2.id)).toMatchObject({ tokenVersion: 2, burstRate: '100/min', sustainedRate: null });
    expect(await server.tokenState(1)).toMatchObject({ email: 'late@example.com' });
    await Promise.all([server.close(), other.close()]);
  });
});

describe('accounts file shared with another process', () => {
  it('checks tokens from memory while another process holds the file, and waits for it to write', async () => {
    const { app: a, auth: au, config } = await authApp();
    const acct = await au.accounts.create('lock@example.com', await hashPassword('lock-pass'));
    const token = await au.tokens.issue(acct.id, acct.tokenVersion);
    await ping(`Token ${token}`, a).expect(200);

    const holder = await holdFileLock(config.ACCOUNTS_DB);
    const started = Date.now();
    await ping(`Token ${token}`, a).expect(200); // no store access on the hot path
    expect(Date.now() - started).toBeLessThan(500);
    const login = obtain({ email: 'lock@example.com', password: 'lock-pass' }, a);
    const loginDone = login.then((r) => r);
    await new Promise((r) => setTimeout(r, 700));
    await release(holder);
    const res = await loginDone;
    expect(res.status).toBe(200);
    expect(res.body.token).toBe(token);
  });

  it('fails with a clear message when the file stays locked', async () => {
    const file = tempAccountsDb();
    const store = new DuckDBAccountStore(file, { lockWaitMs: 300 });
    await store.create('x@example.com', await hashPassword('x', CHEAP));
    const holder = await holdFileLock(file);
    try {
      await expect(store.findByEmail('x@example.com')).rejects.toThrow(/stayed locked by another process/);
    } finally {
      await release(holder);
    }
    expect(await store.findByEmail('X@example.com ')).toMatchObject({ id: 1, email: 'x@example.com' });
    await store.close();
  });
});

describe('make user (src/cli/user.ts)', () => {
  it('creates, then resets, printing a working token last, while this process uses the file', async () => {
    const { app: srv, auth: au, config } = await authApp();
    await au.accounts.create('busy@example.com', await hashPassword('x', CHEAP));
    const env: NodeJS.ProcessEnv = { ...process.env, ACCOUNTS_DB: config.ACCOUNTS_DB };
    delete env.TOKEN_SECRET; // the CLI must use the secret kept in the file, like the app here
    const lastLine = (stdout: string) => stdout.replace(/\n$/, '').split('\n').pop()!;

    // This process holds the file while the CLI starts: the CLI waits for it.
    const held = await DuckDBInstance.create(config.ACCOUNTS_DB);
    const creating = run(process.execPath, [USER_SCRIPT, '--email', 'Erin@Example.com', '--password', 'first-password'], { env });
    await new Promise((r) => setTimeout(r, 1_500));
    held.closeSync();
    const created = await creating;
    expect(created.stdout).toMatch(/^Created account 2 for erin@example\.com\./);
    const token = lastLine(created.stdout);
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect((await ping(`Token ${token}`, srv).expect(200)).body.account).toMatchObject({ id: 2, email: 'erin@example.com' });
    expect((await obtain({ email: 'erin@example.com', password: 'first-password' }, srv).expect(200)).body.token).toBe(token);

    // Reset while the server keeps using the file.
    const resetting = run(process.execPath, [USER_SCRIPT, '--email', 'erin@example.com', '--password', 'second-password', '--burst-rate', '100/min'], {
      env: { ...env, EMAIL: 'ignored@example.com' },
    });
    const busy = await Promise.all(Array.from({ length: 5 }, () => obtain({ email: 'busy@example.com', password: 'wrong' }, srv)));
    expect(busy.map((r) => r.status)).toEqual([400, 400, 400, 400, 400]);
    const reset = await resetting;
    expect(reset.stdout).toMatch(/^Reset the password of erin@example\.com \(account 2\)\./);
    expect(reset.stdout).toMatch(/burst 100\/min/);
    expect(lastLine(reset.stdout)).toBe(token);
    await obtain({ email: 'erin@example.com', password: 'first-password' }, srv).expect(400);
    await obtain({ email: 'erin@example.com', password: 'second-password' }, srv).expect(200);
    expect((await au.accounts.getById(2))!.burstRate).toBe('100/min');

    // Environment variables work too (make user EMAIL=... PASSWORD=...).
    const viaEnv = await run(process.execPath, [USER_SCRIPT, '--clear-rates'], { env: { ...env, EMAIL: 'erin@example.com', PASSWORD: 'third-password' } });
    expect(lastLine(viaEnv.stdout)).toBe(token);
    expect((await au.accounts.getById(2))!.burstRate).toBeNull();
  }, 60_000);

  it('rejects bad input with a clear message and exit code 1', async () => {
    const file = tempAccountsDb();
    const env = { ...process.env, ACCOUNTS_DB: file };
    const cases: [string[], RegExp][] = [
      [['--email', 'not-an-email', '--password', 'long-enough'], /EMAIL is not a valid email address/],
      [['--email', 'a@example.com', '--password', 'short'], /PASSWORD must have at least 8 characters/],
      [['--password', 'long-enough'], /EMAIL is required/],
      [['--email', 'a@example.com', '--password', 'long-enough', '--burst-rate', '5/week'], /--burst-rate must look like/],
      [['--email', 'a@example.com', '--password', 'long-enough', '--sustained-rate', 'lots'], /--sustained-rate must look like/],
      [['--email', 'a@example.com', '--nope'], /Unknown option '--nope'/],
    ];
    await Promise.all(
      cases.map(([args, message]) =>
        expect(run(process.execPath, [USER_SCRIPT, ...args], { env: { ...env, EMAIL: '', PASSWORD: '' } })).rejects.toMatchObject({
          code: 1,
          stdout: '',
          stderr: expect.stringMatching(message),
        }),
      ),
    );
    expect(fs.existsSync(file)).toBe(false);
  }, 60_000);
});
