import type { Page } from 'playwright-core';

/**
 * What the browser tests watch on a page of the server: requests to any other host are refused
 * and listed (`outside`: the pages must work offline), and page errors and Content-Security-Policy
 * violations (reported to the console and as events) are collected in `errors`. Call before the
 * page's first navigation.
 */
export async function watchPage(page: Page, origin: string): Promise<{ outside: string[]; errors: string[] }> {
  const outside: string[] = [];
  const errors: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`)) return route.continue();
    outside.push(url);
    return route.abort();
  });
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    if (/Content[- ]Security[- ]Policy/i.test(msg.text())) errors.push(msg.text());
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`Content-Security-Policy violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  return { outside, errors };
}
