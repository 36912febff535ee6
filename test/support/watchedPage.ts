import type { Page } from 'playwright-core';

/**
 * What the browser tests watch on a page of the server: requests to any other host are refused
 * and listed (`outside`: the pages must work offline), and page errors and Content-Security-Policy
 * violations (reported to the console and as events) are collected in `errors`. Also listed, for
 * the flows that must have none: every console error (Chromium logs each failed request as one) in
 * `consoleErrors`, and every answer of 400 or more in `failed` ("404 <url>"). Call before the
 * page's first navigation.
 */
export async function watchPage(page: Page, origin: string): Promise<{ outside: string[]; errors: string[]; consoleErrors: string[]; failed: string[] }> {
  const outside: string[] = [];
  const errors: string[] = [];
  const consoleErrors: string[] = [];
  const failed: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`)) return route.continue();
    outside.push(url);
    return route.abort();
  });
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    if (/Content[- ]Security[- ]Policy/i.test(msg.text())) errors.push(msg.text());
    if (msg.type() === 'error') consoleErrors.push(msg.text());
  });
  page.on('response', (res) => {
    if (res.status() >= 400) failed.push(`${res.status()} ${res.url()}`);
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`Content-Security-Policy violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  return { outside, errors, consoleErrors, failed };
}
