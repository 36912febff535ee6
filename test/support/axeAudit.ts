import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import type { AxeResults } from 'axe-core';

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The WCAG 2.0 and 2.1 rules of levels A and AA, as axe-core tags them. */
const WCAG21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * axe-core's audit of the page as it is now, its WCAG 2.1 A and AA rules only: each violation of
 * `impacts` as "rule (impact): what it asks; the elements' selectors". axe-core's source is
 * evaluated in the page through the DevTools protocol, which the page's Content-Security-Policy
 * (scripts of its own origin only) does not govern, unlike a script tag.
 */
export async function axeViolations(page: Page, impacts: readonly string[] = ['serious', 'critical']): Promise<string[]> {
  await page.evaluate(axeSource);
  const results = await page.evaluate(
    (tags) => (window as unknown as { axe: { run: (context: Document, options: object) => Promise<AxeResults> } }).axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] }),
    WCAG21_AA,
  );
  return results.violations
    .filter((v) => impacts.includes(v.impact ?? ''))
    .map((v) => `${v.id} (${v.impact}): ${v.help}; ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
