import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildExplorer } from '../scripts/build-explorer.js';
import { createApp } from '../src/app.js';
import { testApp, type TestApp } from './helpers.js';

/** How GET /explore/ and its assets are served; the page itself is tested in explorer-e2e.test.ts. */
let t: TestApp;
let names: { js: string; css: string };
const built = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-explorer-'));

beforeAll(async () => {
  names = await buildExplorer(path.join(built, 'assets'));
  t = await testApp();
});

/** The app serving the explorer page from dir. */
const app = (dir: string) => createApp({ ...t, explorerAssets: dir });

describe('GET /explore/', () => {
  it('serves the page without a token, revalidated on every load, naming content-hashed assets', async () => {
    const res = await request(app(path.join(built, 'assets'))).get('/explore/').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.text).toContain(`<script defer src="assets/${names.js}"></script>`);
    expect(res.text).toContain(`<link rel="stylesheet" href="assets/${names.css}">`);
    // No inline script or style: the same-origin CSP of every response allows files of this server only.
    expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=/);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it('sends the assets with a year of immutable caching, and nothing unhashed or outside the folder', async () => {
    const a = app(path.join(built, 'assets'));
    for (const name of [names.js, names.css]) {
      const res = await request(a).get(`/explore/assets/${name}`).expect(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    await request(a).get('/explore/assets/index.html').expect(404);
    await request(a).get('/explore/assets/main.js').expect(404);
    await request(a).get('/explore/assets/..%2Findex.html').expect(404);
    // /explore without the slash goes to the page (its relative asset URLs need the slash).
    expect((await request(a).get('/explore').expect(301)).headers.location).toBe('/explore/');
  });

  it('keeps the page under 300 KB of compressed JS and CSS', () => {
    const bytes = [names.js, names.css].reduce((sum, f) => sum + gzipSync(fs.readFileSync(path.join(built, 'assets', f))).length, 0);
    expect(bytes).toBeLessThan(300 * 1024);
  });

  it('answers 503 with how to build it when the page was not built', async () => {
    const res = await request(app(path.join(built, 'missing'))).get('/explore/').expect(503);
    expect(res.body.detail).toContain('make build');
  });
});
