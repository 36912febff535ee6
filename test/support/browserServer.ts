import fs from 'node:fs';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createApp } from '../../src/app.js';
import { testApp, type TestApp } from '../helpers.js';
import { watchPage } from './watchedPage.js';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface BrowserServer {
  t: TestApp;
  /** http://127.0.0.1:<port> of the app. */
  base: string;
  browser: Browser;
  close(): Promise<void>;
}

/**
 * A browser test's server and browser: the test app of `dataDir` (the suite's build when
 * undefined) serving the explorer bundle the global setup built, on a loopback port, and headless
 * Chromium.
 */
export async function startBrowserServer(env: Record<string, string>, dataDir: string | undefined, explorerAssets: string): Promise<BrowserServer> {
  const t = await testApp(env, dataDir);
  const server = createApp({ ...t, explorerAssets }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  return {
    t,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    browser,
    async close() {
      await browser.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A new browser context's page at the explorer (`/explore/?<query>`), watched (watchPage.ts) and
 * signed in as the test app's tester, once its first chart is drawn.
 */
export async function signedInExplorer(browser: Browser, base: string, query: string, options: { acceptDownloads?: boolean } = {}): Promise<{ context: BrowserContext; page: Page } & Awaited<ReturnType<typeof watchPage>>> {
  const context = await browser.newContext({ ...options, viewport: { width: 1200, height: 1000 } });
  const page = await context.newPage();
  const watched = await watchPage(page, base);
  await page.goto(`${base}/explore/?${query}`);
  await page.getByLabel('Email').fill('tester@example.com');
  await page.getByLabel('Password').fill('test-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('region', { name: 'Chart' }).locator('canvas').waitFor();
  return { context, page, ...watched };
}
