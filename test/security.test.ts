import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { createAuth } from '../src/auth/index.js';
import { hashPassword } from '../src/auth/passwords.js';
import { loadConfig, ROOT } from '../src/config.js';
import { testApp } from './helpers.js';
import { compiled } from './support/compiled.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-security-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe('security headers', () => {
  it('sends helmet headers and a same-origin Content-Security-Policy on every response, and keeps CORS open', async () => {
    const { app, token } = await testApp();
    for (const [url, auth] of [['/api/city/?page_size=1', true], ['/healthz', false], ['/api/city/', false], ['/docs/', false]] as const) {
      const res = await request(app).get(url).set(auth ? { Authorization: `Token ${token}` } : {}).set('Origin', 'https://app.example');
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['content-security-policy'], url).toMatch(/default-src 'self'.*script-src 'self'/);
      expect(res.headers['content-security-policy'], url).not.toMatch(/upgrade-insecure-requests|unsafe-inline/);
      expect(res.headers['cross-origin-resource-policy'], url).toBe('cross-origin');
      expect(res.headers['x-frame-options'], url).toBe('SAMEORIGIN');
      expect(res.headers['access-control-allow-origin'], url).toBe('*');
    }
  });
});

describe('TOKEN_SECRET_FILE', () => {
  const secret = 'a-secret-of-at-least-thirty-two-characters-0123';
  const file = path.join(tmp, 'secret');
  fs.writeFileSync(file, `${secret}\n`);

  it('reads the signing secret from a file, without its final newline', async () => {
    expect(loadConfig({ TOKEN_SECRET_FILE: file }).TOKEN_SECRET).toBe(secret);
    // Tokens signed with the file's secret are those of TOKEN_SECRET with the same value.
    const viaFile = await createAuth(loadConfig({ TOKEN_SECRET_FILE: file, ACCOUNTS_DB: path.join(tmp, 'a.duckdb') }));
    const viaEnv = await createAuth(loadConfig({ TOKEN_SECRET: secret, ACCOUNTS_DB: path.join(tmp, 'b.duckdb') }));
    expect(await viaEnv.tokens.verify(await viaFile.tokens.issue(7, 1))).toEqual({ accountId: 7, version: 1 });
    await viaFile.close();
    await viaEnv.close();
  });

  it('refuses both settings at once, an unreadable file and a short secret, naming the setting', () => {
    expect(() => loadConfig({ TOKEN_SECRET_FILE: file, TOKEN_SECRET: secret })).toThrow(/TOKEN_SECRET_FILE: set either TOKEN_SECRET or TOKEN_SECRET_FILE, not both/);
    expect(() => loadConfig({ TOKEN_SECRET_FILE: path.join(tmp, 'missing') })).toThrow(/TOKEN_SECRET_FILE: cannot read .*missing \(ENOENT\)/);
    const short = path.join(tmp, 'short');
    fs.writeFileSync(short, 'too short\n');
    expect(() => loadConfig({ TOKEN_SECRET_FILE: short })).toThrow(/TOKEN_SECRET_FILE: .*at least 32 characters, it has 9/);
  });
});

describe('the accounts file', () => {
  it('is created readable by its owner only, with the generated secret in it, by the server and by make user', async () => {
    const db = path.join(tmp, 'private', 'accounts.duckdb');
    const auth = await createAuth(loadConfig({ ACCOUNTS_DB: db }));
    await auth.accounts.create('owner@example.com', await hashPassword('owner-password'));
    await auth.close();
    expect(mode(db)).toBe(0o600);
    for (const f of fs.readdirSync(path.dirname(db))) expect(mode(path.join(path.dirname(db), f)), f).toBe(0o600);

    const byScript = path.join(tmp, 'script', 'accounts.duckdb');
    const made = spawnSync(process.execPath, [compiled('src/cli/user.ts'), '--email', 'cli@example.com', '--password', 'cli-password-long'], {
      cwd: ROOT,
      env: { ...process.env, ACCOUNTS_DB: byScript },
      encoding: 'utf8',
    });
    expect(made.status, made.stderr).toBe(0);
    expect(mode(byScript)).toBe(0o600);
  });

  it('makes an existing world-readable accounts file private on its next use', async () => {
    const db = path.join(tmp, 'old', 'accounts.duckdb');
    const auth = await createAuth(loadConfig({ ACCOUNTS_DB: db }));
    await auth.close();
    fs.chmodSync(db, 0o644);
    const again = await createAuth(loadConfig({ ACCOUNTS_DB: db }));
    await again.accounts.findByEmail('nobody@example.com');
    await again.close();
    expect(mode(db)).toBe(0o600);
  });
});

describe('TOKEN_TTL', () => {
  it('issues tokens without expiry by default, as the original', async () => {
    const { token } = await testApp();
    expect(decodeJwt(token)).not.toHaveProperty('exp');
    expect(decodeJwt(token)).not.toHaveProperty('iat');
  });

  it('gives tokens a lifetime and answers 401 naming the cause once it has passed', async () => {
    const { app, token } = await testApp({ TOKEN_TTL: '2s' });
    const claims = decodeJwt(token);
    expect(claims.exp! - claims.iat!).toBe(2);
    const auth = { Authorization: `Token ${token}` };
    expect((await request(app).get('/api/scenario/').set(auth)).status).toBe(200);
    await new Promise((r) => setTimeout(r, (claims.exp! * 1000 - Date.now()) + 50));
    const expired = await request(app).get('/api/scenario/').set(auth);
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ detail: 'Token has expired: get a new one from /api-token-auth/.' });
    // A token obtained again works; it expires too.
    const fresh = await request(app).post('/api-token-auth/').send({ email: 'tester@example.com', password: 'test-password' });
    expect(fresh.status).toBe(200);
    expect(decodeJwt(fresh.body.token).exp).toBeGreaterThan(Date.now() / 1000);
    expect((await request(app).get('/api/scenario/').set({ Authorization: `Token ${fresh.body.token}` })).status).toBe(200);
  });

  it('accepts seconds or s, m, h, d and refuses anything else, naming TOKEN_TTL', () => {
    expect(loadConfig({ TOKEN_TTL: '90' }).TOKEN_TTL).toBe(90);
    expect(loadConfig({ TOKEN_TTL: '15m' }).TOKEN_TTL).toBe(900);
    expect(loadConfig({ TOKEN_TTL: '30d' }).TOKEN_TTL).toBe(2_592_000);
    for (const bad of ['0', '-5', '1w', 'soon', '1.5h']) expect(() => loadConfig({ TOKEN_TTL: bad }), bad).toThrow(/TOKEN_TTL: must be a positive number/);
  });
});
