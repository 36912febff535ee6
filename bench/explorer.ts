/**
 * `make bench-explorer`: the explorer page's weight and first render on the default data
 * (DATA_DIR). Starts the compiled server as `make run` does, then
 * - page weight: the bytes on the wire of the page's script and stylesheet, as the server sends
 *   them to a browser (Accept-Encoding: gzip, deflate, br), and uncompressed;
 * - first render: in headless Chromium (the flags of the end-to-end tests), a fresh browser context
 *   each run (empty cache and sessionStorage) opens a shared view
 *   (/explore/?city=<New York City>&indicator=frost_days) and signs in; measured are the page's own
 *   User Timing marks (the sign-in submitted; the first frame after the chart and the table were
 *   drawn) and, as the driver sees it, the click on "Sign in" to the chart and table found. The
 *   first run meets a cold server (its DuckDB caches and the file system's), the others a warm one.
 * BENCH_EXPLORER_RUNS (default 7) runs; results also in bench/results/explorer.json.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT } from '../src/config.js';

const DATA_DIR = path.resolve(process.env.DATA_DIR ?? path.join(ROOT, 'data', 'build'));
const RUNS = Number(process.env.BENCH_EXPLORER_RUNS ?? 7);
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const NEW_YORK = 5128581;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** The body's size as sent (no decompression, unlike fetch) and its encoding. */
function wireBytes(url: string, acceptEncoding?: string): Promise<{ bytes: number; encoding: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: acceptEncoding ? { 'Accept-Encoding': acceptEncoding } : {} }, (res) => {
        let bytes = 0;
        res.on('data', (d: Buffer) => (bytes += d.length));
        res.on('end', () => (res.statusCode === 200 ? resolve({ bytes, encoding: String(res.headers['content-encoding'] ?? 'identity') }) : reject(new Error(`${url}: ${res.statusCode}`))));
      })
      .on('error', reject);
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  if (!fs.existsSync(path.join(DATA_DIR, 'manifest.json'))) throw new Error(`No data build in ${DATA_DIR}: make data first.`);
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium.`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-bench-explorer-'));
  const port = await freePort();
  // Limits out of the way: every run signs in again and makes the same three climate requests.
  const env = {
    ...process.env,
    DATA_DIR,
    ACCOUNTS_DB: path.join(tmp, 'accounts.duckdb'),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    TOKEN_AUTH_RATE: '1000/min',
    THROTTLE_BURST_RATE: '100000/min',
    THROTTLE_SUSTAINED_RATE: '1000000/day',
  };
  execFileSync(TSX, ['src/cli/user.ts', '--email', 'bench@example.com', '--password', 'bench-password'], { cwd: ROOT, env, encoding: 'utf8' });
  const nodeOptions = (process.env.SERVER_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
  const server: ChildProcess = spawn(process.execPath, [...nodeOptions, path.join(ROOT, 'dist', 'server.js')], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      const ok = await fetch(`${base}/readyz`).then((r) => r.ok, () => false);
      if (ok) break;
      if (i > 300) throw new Error('the server did not get ready in 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }

    const page = await (await fetch(`${base}/explore/`)).text();
    const assets = [...page.matchAll(/(?:src|href)="(assets\/[^"]+\.(?:js|css))"/g)].map((m) => `${base}/explore/${m[1]}`);
    const weight = await Promise.all(
      assets.map(async (url) => ({ asset: path.basename(url), sent: await wireBytes(url, 'gzip, deflate, br'), plain: (await wireBytes(url)).bytes })),
    );
    const sentTotal = weight.reduce((s, w) => s + w.sent.bytes, 0);
    const plainTotal = weight.reduce((s, w) => s + w.plain, 0);
    for (const w of weight) console.log(`  ${w.asset}: ${(w.sent.bytes / 1024).toFixed(1)} KB ${w.sent.encoding} (${(w.plain / 1024).toFixed(1)} KB uncompressed)`);
    console.log(`page weight (JS+CSS): ${(sentTotal / 1024).toFixed(1)} KB compressed, ${(plainTotal / 1024).toFixed(1)} KB uncompressed`);

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    const inPage: number[] = [];
    const seen: number[] = [];
    const signInMs: number[] = [];
    try {
      for (let run = 0; run < RUNS; run++) {
        const context = await browser.newContext({ viewport: { width: 1200, height: 1000 } });
        const tab = await context.newPage();
        await tab.goto(`${base}/explore/?city=${NEW_YORK}&indicator=frost_days`);
        await tab.getByLabel('Email').fill('bench@example.com');
        await tab.getByLabel('Password').fill('bench-password');
        const started = Date.now();
        await tab.getByRole('button', { name: 'Sign in' }).click();
        await tab.locator('#chart canvas').waitFor({ timeout: 30_000 }).catch(async (err: Error) => {
          throw new Error(`no chart: the page says "${await tab.locator('main').innerText()}"`, { cause: err });
        });
        await tab.getByRole('table', { name: 'Data table' }).locator('tbody tr').first().waitFor();
        seen.push(Date.now() - started);
        // The page's own marks: the sign-in submitted, and the first frame after the chart and table were drawn.
        const shown = await tab.waitForFunction(() => {
          const [from] = performance.getEntriesByName('explorer-sign-in');
          const [to] = performance.getEntriesByName('explorer-chart-shown');
          return from && to ? to.startTime - from.startTime : false;
        });
        inPage.push(Math.round((await shown.jsonValue()) as number));
        // Of which the sign-in request: the server's scrypt password check is most of it, by design.
        signInMs.push(Math.round(await tab.evaluate(() => performance.getEntriesByType('resource').find((e) => e.name.endsWith('/api-token-auth/'))?.duration ?? NaN)));
        await context.close();
      }
    } finally {
      await browser.close();
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(DATA_DIR, 'manifest.json'), 'utf8')) as { climate_cities: number; build_id: string };
    const summary = (xs: number[]) => `first ${xs[0]} ms, median ${median(xs)} ms, max ${Math.max(...xs)} ms (${xs.join(', ')})`;
    console.log(`sign-in to first chart (${RUNS} runs, New York City, frost_days, 3 scenarios, ${os.cpus().length} cores):`);
    console.log(`  in the page (submit to the frame after the chart): ${summary(inPage)}`);
    console.log(`  seen by the driver (click to chart and table found): ${summary(seen)}`);
    console.log(`  of which POST /api-token-auth/ (scrypt): ${summary(signInMs)}`);
    fs.mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
    fs.writeFileSync(
      path.join(ROOT, 'bench', 'results', 'explorer.json'),
      JSON.stringify({ when: new Date().toISOString(), data: manifest, cores: os.cpus().length, weight, compressedBytes: sentTotal, uncompressedBytes: plainTotal, firstChartInPageMs: inPage, firstChartSeenMs: seen, signInMs }, null, 2) + '\n',
    );
  } finally {
    server.kill('SIGTERM');
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
