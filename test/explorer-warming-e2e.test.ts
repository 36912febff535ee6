import fs from 'node:fs';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../src/app.js';
import { testApp, type TestApp } from './helpers.js';
import { axeViolations } from './support/axeAudit.js';
import { signedInExplorer } from './support/browserServer.js';

/**
 * The explorer's "By warming level" view in headless Chromium, on the build whose years hold the
 * warming-level windows (test/support/warmingBuild.ts): per level, each scenario's 10th, median,
 * 90th percentile and model count, as the API answers them, in the table and the chart; the CSV
 * download is the API's; the view is in the address; axe-core finds no serious or critical violation
 * of the WCAG 2.1 A and AA rules. Requests elsewhere are refused.
 */
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const hasChromium = fs.existsSync(CHROMIUM);
const NEW_YORK = 5128581;

let t: TestApp;
let server: Server;
let base: string;
let browser: Browser;

beforeAll(async () => {
  if (!hasChromium) return;
  // The page as scripts/build-dist.ts builds it, bundled once by the global setup.
  const assetsDir = inject('explorerAssets');
  t = await testApp({ THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '1000000/day', TOKEN_AUTH_RATE: '1000/min' }, inject('warmingDataDir'));
  server = createApp({ ...t, explorerAssets: assetsDir }).listen(0, '127.0.0.1');
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

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });
const api = async (url: string) => {
  const res = await fetch(`${base}${url}`, { headers: { Authorization: `Token ${t.token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** The levels a scenario has models at in this build's years, as the page reads them from GET /api/warming-level/. */
async function levelsOf(dataset: string, scenario: string): Promise<string[]> {
  const listing = (await api('/api/warming-level/')).body as { levels: string[]; datasets: { name: string; scenarios: { name: string; reaching_in_data: Record<string, number> }[] }[] };
  const reaching = listing.datasets.find((d) => d.name === dataset)!.scenarios.find((s) => s.name === scenario)!.reaching_in_data;
  return listing.levels.filter((l) => reaching[l]! > 0);
}

/** The table's rows for the scenarios that answer: level, then 10th, median, 90th, models per scenario (2 decimals). */
async function expectedRows(dataset: string, scenarios: string[]): Promise<{ rows: string[][]; refused: string[] }> {
  const answers: Record<string, Record<string, number | null>>[] = [];
  const refused: string[] = [];
  for (const s of scenarios) {
    const levels = await levelsOf(dataset, s);
    const { status, body } = await api(`/api/climate-data/${NEW_YORK}/${s}/indicator/frost_days/?dataset=${dataset}&agg=10th,median,90th&warming_level=${levels.join(',')}`);
    if (status === 200) answers.push(body.data as Record<string, Record<string, number | null>>);
    else refused.push(String(body.detail));
  }
  const levels = ['1.0', '1.5', '2.0', '3.0', '4.0'].filter((l) => answers.some((a) => a[l]));
  const show = (v: number | null | undefined) => (v === null || v === undefined ? '' : String(Math.round(v * 100) / 100));
  return {
    rows: levels.map((l) => [`${l} °C`, ...answers.flatMap((a) => (a[l] ? [show(a[l]['10th']), show(a[l].median), show(a[l]['90th']), String(a[l].model_count)] : ['', '', '', '']))]),
    refused,
  };
}

const tableRows = (page: Page) =>
  page.getByRole('table', { name: 'Data table' }).locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('th, td')].map((c) => c.textContent ?? '')));
const tableHeaders = (page: Page) =>
  page.getByRole('table', { name: 'Data table' }).locator('thead tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('th')].map((c) => c.textContent ?? '')));
const chart = (page: Page) => page.getByRole('region', { name: 'Chart' });

describe('the explorer by global warming level, in headless Chromium', () => {
  it("shows each level's spread and model count per scenario, the API numbers in the table, the CSV, and keeps the view in the address", async () => {
    expect(hasChromium, `${CHROMIUM} is missing: apt-get install chromium`).toBe(true);
    const { context, page, outside, errors } = await signedInExplorer(browser, base, `city=${NEW_YORK}&indicator=frost_days&dataset=NEX-GDDP`, { acceptDownloads: true });

    await page.getByLabel('View').selectOption('warming_level');
    const nex = await expectedRows('NEX-GDDP', ['RCP45', 'RCP85']);
    expect(nex.refused).toEqual([]);
    // RCP4.5 ends in 2050 in this build: its 3.0 and 4.0 °C windows are not in it, and are not asked for.
    expect(await levelsOf('NEX-GDDP', 'RCP45')).toEqual(['1.0', '1.5', '2.0']);
    expect(nex.rows.map((r) => r[0])).toEqual(['1.0 °C', '1.5 °C', '2.0 °C', '3.0 °C', '4.0 °C']);
    await poll(() => tableRows(page)).toEqual(nex.rows);
    expect(await tableHeaders(page)).toEqual([
      ['Warming level', 'RCP 4.5', 'RCP 8.5'],
      ['10th', 'median', '90th', 'models', '10th', 'median', '90th', 'models'],
    ]);
    // A bar per scenario and level it has models at; the time controls are hidden.
    const bars = chart(page).locator('svg.level-chart g.level-bar');
    expect(await bars.count()).toBe(nex.rows.reduce((n, r) => n + [0, 1].filter((k) => r[1 + k * 4 + 3] !== '').length, 0));
    expect(await chart(page).locator('svg.level-chart').getAttribute('aria-label')).toContain('Frost Days (days) at each global warming level');
    expect(await chart(page).locator('#chart-title').textContent()).toBe('Frost Days (days) by global warming level, New York City, NY, NEX-GDDP');
    expect(await page.getByLabel('Time aggregation').isVisible()).toBe(false);
    expect(new URL(page.url()).searchParams.get('view')).toBe('warming_level');
    // axe-core's WCAG 2.1 A and AA rules on the view, its map drawn.
    await poll(() => page.getByRole('listbox', { name: 'Cities with climate data' }).getByRole('option').count()).toBeGreaterThan(0);
    expect(await axeViolations(page)).toEqual([]);

    // The CSV is the API's, with the levels of that scenario.
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'RCP 4.5 CSV' }).click()]);
    const levels = await levelsOf('NEX-GDDP', 'RCP45');
    const q = new URLSearchParams({ agg: '10th,median,90th', dataset: 'NEX-GDDP', warming_level: levels.join(','), format: 'csv' });
    const fromApi = await fetch(`${base}/api/climate-data/${NEW_YORK}/RCP45/indicator/frost_days/?${q}`, { headers: { Authorization: `Token ${t.token}` } });
    expect(fromApi.status).toBe(200);
    const bytes = fs.readFileSync((await csv.path())!);
    expect(bytes).toEqual(Buffer.from(await fromApi.arrayBuffer()));
    expect(bytes.toString().split('\n')[0]).toContain('warming_level,period,statistic,value,model_count');

    // The change against a baseline, and a reload restores the view.
    await page.getByLabel('Show the change against a historic baseline').check();
    const changed = async () => {
      const rows: string[][] = [];
      for (const level of ['1.0', '1.5', '2.0', '3.0', '4.0']) {
        const row = [`${level} °C`];
        for (const s of ['RCP45', 'RCP85']) {
          const reached = await levelsOf('NEX-GDDP', s);
          const { body } = await api(`/api/climate-data/${NEW_YORK}/${s}/indicator/frost_days/?dataset=NEX-GDDP&agg=10th,median,90th&warming_level=${reached.join(',')}&relative_to=1971`);
          const v = (body.data as Record<string, Record<string, number>>)[level];
          const show = (x: number | undefined) => (x === undefined || x === null ? '' : String(Math.round(x * 100) / 100));
          row.push(...(v ? [show(v['10th']), show(v.median), show(v['90th']), String(v.model_count)] : ['', '', '', '']));
        }
        rows.push(row);
      }
      return rows;
    };
    const relative = await changed();
    await poll(() => tableRows(page)).toEqual(relative);
    await page.reload();
    await poll(() => tableRows(page)).toEqual(relative);
    expect(await page.getByLabel('View').inputValue()).toBe('warming_level');

    // CMIP6: SSP1-2.6 ends in 2030 in this build, so it is asked only for the levels with windows
    // in it; every SSP is shown.
    await page.getByLabel('Show the change against a historic baseline').uncheck();
    await page.getByLabel('Dataset').selectOption('NEX-GDDP-CMIP6');
    expect(await levelsOf('NEX-GDDP-CMIP6', 'ssp126')).toEqual(['1.0', '1.5']);
    const cmip6 = await expectedRows('NEX-GDDP-CMIP6', ['ssp126', 'ssp245', 'ssp370', 'ssp585']);
    expect(cmip6.refused).toEqual([]);
    await poll(() => tableRows(page)).toEqual(cmip6.rows);
    expect((await tableHeaders(page))[0]).toEqual(['Warming level', 'SSP1-2.6', 'SSP2-4.5', 'SSP3-7.0', 'SSP5-8.5']);

    // Back to the periods over time.
    await page.getByLabel('View').selectOption('time');
    await chart(page).locator('canvas').waitFor();
    expect(new URL(page.url()).searchParams.has('view')).toBe(false);
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);
});
