import fs from 'node:fs';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from './helpers.js';
import { watchPage } from './support/watchedPage.js';

/**
 * The docs page in a real browser against a started server: Debian's chromium, driven by
 * playwright-core. Requests to anywhere but the server are refused and recorded: the page must
 * work offline.
 */
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let t: TestApp;
let server: Server;
let base: string;
let browser: Browser;

const MISSING = `${CHROMIUM} is missing; the docs end-to-end test needs it: apt-get install -y --no-install-recommends chromium (.ci/run installs it).`;
const hasChromium = fs.existsSync(CHROMIUM);

beforeAll(async () => {
  // Without Chromium each test fails with MISSING (a failed hook would only mark them skipped).
  if (!hasChromium) return;
  t = await testApp({ THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '1000000/day' });
  server = t.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});

afterAll(async () => {
  await browser?.close();
  if (server) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * The docs page in a new tab: requests to other hosts are blocked and listed (`outside`), and
 * page errors and Content-Security-Policy violations (reported to the console and as events) are
 * collected in `errors`.
 */
async function openDocs(): Promise<{ page: Page; outside: string[]; errors: string[] }> {
  if (!hasChromium) throw new Error(MISSING);
  const page = await browser.newPage();
  const { outside, errors } = await watchPage(page, base);
  const response = await page.goto(`${base}/docs/`);
  const csp = response?.headers()['content-security-policy'] ?? '';
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("script-src 'self'");
  await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
  return { page, outside, errors };
}

/** The operation block of one path and method, as Swagger UI renders it. */
const operation = (page: Page, method: string, path: string) =>
  page.locator(`.opblock-${method}`).filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });

describe('GET /docs/ in headless Chromium', () => {
  it('shows the city, raw-data and indicator operations, with nothing fetched from elsewhere', async () => {
    const { page, outside, errors } = await openDocs();
    for (const path of [
      '/api/city/',
      '/api/city/{city}/',
      '/api/climate-data/{city}/{scenario}/',
      '/api/climate-data/{lat}/{lon}/{scenario}/',
      '/api/climate-data/{city}/{scenario}/indicator/{indicator_name}/',
      '/api/climate-data/{lat}/{lon}/{scenario}/indicator/{indicator_name}/',
      '/api/indicator/',
    ]) {
      await expect.poll(() => operation(page, 'get', path).count(), { message: path }).toBe(1);
    }
    await expect.poll(() => page.locator('.btn.authorize').count()).toBeGreaterThan(0);
    // The indicator operation shows the indicator-specific parameters and the enums as choices.
    const indicator = operation(page, 'get', '/api/climate-data/{city}/{scenario}/indicator/{indicator_name}/');
    await indicator.locator('.opblock-summary').click();
    for (const name of ['threshold', 'threshold_comparator', 'basetemp', 'percentile', 'historic_range', 'time_aggregation', 'format']) {
      await expect.poll(() => indicator.locator(`tr[data-param-name="${name}"]`).count(), { message: name }).toBe(1);
    }
    const choices = await indicator.locator('tr[data-param-name="time_aggregation"] select option').allTextContents();
    expect(choices).toEqual(expect.arrayContaining(['yearly', 'monthly', 'custom']));
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('authorizes with a real token and runs "Try it out" on GET /api/city/{city}/ to a 200', async () => {
    const { page, outside, errors } = await openDocs();
    await page.locator('.btn.authorize').first().click();
    const dialog = page.locator('.modal-ux');
    await dialog.locator('input').first().fill(`Token ${t.token}`);
    await dialog.locator('button.authorize').click();
    await dialog.locator('button.btn-done').click();

    const op = operation(page, 'get', '/api/city/{city}/');
    await op.locator('.opblock-summary').click();
    await op.locator('button.try-out__btn').click();
    await op.locator('tr[data-param-name="city"] input').fill('5128581');
    await op.locator('button.execute').click();

    const live = op.locator('.live-responses-table .response');
    await expect.poll(() => live.locator('.response-col_status').first().textContent(), { timeout: 20_000 }).toMatch(/^\s*200/);
    await expect.poll(() => live.locator('.response-col_description').first().textContent()).toContain('New York');
    // The request carried the token as the scheme says: the curl line shows the header.
    expect(await op.locator('.curl-command').textContent()).toContain(`Authorization: Token ${t.token}`);
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('runs "Try it out" on POST /api/climate-data/batch/{scenario}/indicator/{indicator_name}/ with the example body to a 200', async () => {
    const { page, outside, errors } = await openDocs();
    await page.locator('.btn.authorize').first().click();
    const dialog = page.locator('.modal-ux');
    await dialog.locator('input').first().fill(`Token ${t.token}`);
    await dialog.locator('button.authorize').click();
    await dialog.locator('button.btn-done').click();

    const op = operation(page, 'post', '/api/climate-data/batch/{scenario}/indicator/{indicator_name}/');
    await op.locator('.opblock-summary').click();
    await op.locator('button.try-out__btn').click();
    await op.locator('tr[data-param-name="scenario"] select').selectOption('RCP85');
    await op.locator('tr[data-param-name="indicator_name"] select').selectOption('frost_days');
    // The form as it comes, with every declared default filled in.
    // The body editor starts with the documented example: three locations.
    expect(await op.locator('.body-param textarea').inputValue()).toContain('5128581');
    await op.locator('button.execute').click();

    const live = op.locator('.live-responses-table .response');
    await expect.poll(() => live.locator('.response-col_status').first().textContent(), { timeout: 20_000 }).toMatch(/^\s*200/);
    await expect.poll(() => live.locator('.response-col_description').first().textContent()).toContain('"results"');
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
