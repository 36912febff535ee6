import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cellIndexAt, cellText, colourOf, type MapAnswer } from '../web/explorer/cellMap.js';
import { axeViolations } from './support/axeAudit.js';
import { CHROMIUM, hasChromium, signedInExplorer, startBrowserServer, type BrowserServer } from './support/browserServer.js';

/**
 * The explorer's map view in headless Chromium, on the build whose years hold a baseline and a
 * future period (test/support/warmingBuild.ts): every cell the map answer has is painted in its
 * legend's colour, the legend is the answer's, the pointer and the keyboard focus read a cell's
 * values as the API answers them, the change against a baseline takes the diverging scale, Enter
 * on a city opens its chart, and axe-core finds no serious or critical WCAG 2.1 A/AA violation.
 */
const NEW_YORK = 5128581;

let s: BrowserServer | undefined;

beforeAll(async () => {
  if (!hasChromium) return;
  s = await startBrowserServer({ THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '1000000/day', TOKEN_AUTH_RATE: '1000/min' }, inject('warmingDataDir'), inject('explorerAssets'));
});

afterAll(async () => {
  await s?.close();
});

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });
async function api<T>(url: string): Promise<T> {
  const res = await fetch(`${s!.base}${url}`, { headers: { Authorization: `Token ${s!.t.token}` } });
  expect(res.status, url).toBe(200);
  return (await res.json()) as T;
}

type City = { id: number; geometry: { coordinates: [number, number] }; properties: { name: string; admin: string; datasets: string[] } };

/** The legend as shown: each class's colour (rgb) and words. */
const legend = (page: Page) =>
  page.locator('#map-legend li').evaluateAll((items) => items.map((li) => [getComputedStyle(li.querySelector('.swatch')!).backgroundColor, li.textContent ?? '']));
const rgb = (hex: string) => `rgb(${[1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16)).join(', ')})`;

/**
 * The map's cell image (the canvas the map drew) read back in the page: how many of its pixels are
 * painted, and the colour at (x, y) of the drawing.
 */
function readCells(page: Page, [x, y]: [number, number] = [0, 0]): Promise<{ painted: number; pixel: string }> {
  return page.locator('#map image.cells').evaluate(async (image, [x, y]) => {
    const img = new Image();
    img.src = image.getAttribute('href')!;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.width;
    canvas.height = img.height;
    const ctx = canvas.getContext('2d')!;
    ctx.drawImage(img, 0, 0);
    const data = ctx.getImageData(0, 0, img.width, img.height).data;
    let painted = 0;
    for (let k = 3; k < data.length; k += 4) if (data[k]! > 0) painted++;
    const scale = img.width / 640;
    const at = 4 * (Math.round(y! * scale) * img.width + Math.round(x! * scale));
    return { painted, pixel: `rgb(${data[at]}, ${data[at + 1]}, ${data[at + 2]})` };
  }, [x, y]);
}

/** The pixel of the painted cells under a city's dot. */
async function cellPixel(page: Page, cityId: number): Promise<string> {
  const dot = page.locator(`#map circle[data-city="${cityId}"]`);
  return (await readCells(page, [Number(await dot.getAttribute('cx')), Number(await dot.getAttribute('cy'))])).pixel;
}

/** How many pixels of the map's cell image are painted. */
const paintedPixels = async (page: Page) => (await readCells(page)).painted;

/** A city with data whose coordinates lie well inside its map cell (the pointer and the pixel are then that cell's). */
function inner(answer: MapAnswer, cities: City[]): City {
  const { resolution, origin } = answer.grid;
  const frac = (v: number, o: number) => (((v - o) / resolution) % 1 + 1) % 1;
  const found = cities.find((c) => {
    const [lon, lat] = c.geometry.coordinates;
    const i = cellIndexAt(answer, lat, lon);
    return i >= 0 && answer.values.median![i]! > 0 && answer.values['10th']![i] !== answer.values['90th']![i] && Math.abs(frac(lat, origin.lat) - 0.5) < 0.3 && Math.abs(frac(lon, origin.lon) - 0.5) < 0.3;
  });
  expect(found, 'a city of the build well inside its cell, with frost days that differ across models').toBeDefined();
  return found!;
}

describe('the explorer as a map, in headless Chromium', () => {
  it("paints every cell in its legend's colour, reads a cell's values as the API answers them, diverges for a change, and opens a picked city's chart", async () => {
    expect(hasChromium, `${CHROMIUM} is missing: apt-get install chromium`).toBe(true);
    const { base, browser } = s!;
    const { context, page, outside, errors } = await signedInExplorer(browser, base, `city=${NEW_YORK}&indicator=frost_days&dataset=NEX-GDDP`);

    await page.getByLabel('View').selectOption('map');
    await page.getByLabel('Scenario').selectOption('RCP85');
    await page.getByLabel('Years (start:end)').fill('2031:2050');
    await page.getByLabel('Years (start:end)').press('Enter');
    const answer = await api<MapAnswer>('/api/climate-data/map/RCP85/indicator/frost_days/?agg=10th,median,90th&dataset=NEX-GDDP&years=2031:2050');
    expect(answer.cells.id.length).toBeGreaterThan(0);
    const { breaks, colors } = answer.color_scale;
    await poll(() => legend(page)).toEqual(colors.map((c, k) => [rgb(c), k === 0 ? `below ${breaks[1]}` : k === colors.length - 1 ? `${breaks[k]} and above` : `${breaks[k]} to ${breaks[k + 1]}`]));
    expect(await page.locator('#map-legend-title').textContent()).toBe('Frost Days (days)');
    const withValue = answer.values.median!.filter((v) => v !== null).length;
    expect(await page.locator('#chart-message').textContent()).toContain(`The map shows ${withValue} cell`);
    expect(await page.locator('#chart-title').textContent()).toBe('Frost Days (days), median of the models, 2031-2050, RCP 8.5, NEX-GDDP');
    const url = new URL(page.url()).searchParams;
    expect([url.get('view'), url.get('map_scenario'), url.get('map_years'), url.get('map_stat')]).toEqual(['map', 'RCP85', '2031:2050', 'median']);

    // The cell under a city well inside it: its pixel is its class's colour, and the focus on the
    // city's dot reads its values and models as the API answers them.
    const cities = (await api<{ features: City[] }>('/api/city/?page_size=1000')).features.filter((c) => c.properties.datasets.includes('NEX-GDDP'));
    const city = inner(answer, cities);
    const i = cellIndexAt(answer, city.geometry.coordinates[1], city.geometry.coordinates[0]);
    expect(await cellPixel(page, city.id)).toBe(rgb(colourOf(answer.color_scale, answer.values.median![i]!)));
    const dot = page.getByRole('listbox', { name: 'Cities with climate data' }).getByRole('option', { name: new RegExp(`^${city.properties.name}, ${city.properties.admin}, has`) });
    await dot.focus();
    await poll(() => page.locator('#map-readout').textContent()).toBe(`${cellText(answer, i, 'median')}; ${city.properties.name}, ${city.properties.admin}.`);
    // The pointer over it reads the same cell, and names the nearest city with data.
    const box = (await dot.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await poll(() => page.locator('#map-readout').textContent()).toMatch(new RegExp(`^${cellText(answer, i, 'median').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; nearest city with data: `));

    // Another statistic repaints from the same answer, asking nothing again.
    const asked: string[] = [];
    page.on('request', (r) => asked.push(r.url()));
    await page.getByLabel('Statistic across models').focus();
    await page.getByLabel('Statistic across models').selectOption('90th');
    await dot.focus();
    await poll(() => page.locator('#map-readout').textContent()).toBe(`${cellText(answer, i, '90th')}; ${city.properties.name}, ${city.properties.admin}.`);
    await poll(() => cellPixel(page, city.id)).toBe(rgb(colourOf(answer.color_scale, answer.values['90th']![i]!)));
    expect(asked.filter((u) => u.includes('/api/climate-data/map/'))).toEqual([]);
    await page.getByLabel('Statistic across models').selectOption('median');

    // axe-core's WCAG 2.1 A and AA rules on the map view.
    expect(await axeViolations(page)).toEqual([]);

    // Zoomed to the city's ecoregion: the map asks for that region's cells only, paints them
    // larger, reads them as the API answers them, and names the region; then the whole map again.
    const wholePixels = await paintedPixels(page);
    const withValues = (a: MapAnswer) => a.values.median!.filter((v) => v !== null).length;
    const regionId = (await api<{ properties: { region: number } }>(`/api/city/${city.id}/`)).properties.region;
    const regionName = (await api<{ properties: { level2_description: string } }>(`/api/region/${regionId}/`)).properties.level2_description;
    const inRegion = await api<MapAnswer>(`/api/climate-data/map/RCP85/indicator/frost_days/?agg=10th,median,90th&dataset=NEX-GDDP&years=2031:2050&region=${regionId}`);
    expect(withValues(inRegion)).toBeGreaterThan(0);
    expect(withValues(inRegion)).toBeLessThan(withValue);
    await page.getByLabel('Area').selectOption(String(regionId));
    await poll(() => page.locator('#chart-title').textContent()).toBe(`Frost Days (days), median of the models, 2031-2050, RCP 8.5, NEX-GDDP, ${regionName}`);
    expect(asked.filter((u) => u.includes('/api/climate-data/map/')).map((u) => new URL(u).searchParams.get('region'))).toEqual([String(regionId)]);
    expect(new URL(page.url()).searchParams.get('map_area')).toBe(String(regionId));
    expect(await page.locator('#chart-message').textContent()).toContain(`The map shows ${withValues(inRegion)} cell`);
    expect(await page.getByRole('group', { name: `Map of the ecoregion ${regionName}` }).count()).toBe(1);
    expect(await page.locator('#map-caption').textContent()).toMatch(new RegExp(`^Ecoregion ${regionName}: ecoregion outlines`));
    const j = cellIndexAt(inRegion, city.geometry.coordinates[1], city.geometry.coordinates[0]);
    expect(inRegion.values.median![j]).toBe(answer.values.median![i]);
    await dot.focus();
    await poll(() => page.locator('#map-readout').textContent()).toBe(`${cellText(inRegion, j, 'median')}; ${city.properties.name}, ${city.properties.admin}.`);
    expect(await cellPixel(page, city.id)).toBe(rgb(colourOf(inRegion.color_scale, inRegion.values.median![j]!)));
    // Each cell more than twice the area it had on the whole map (the region is about half as wide).
    expect((await paintedPixels(page)) / withValues(inRegion)).toBeGreaterThan((2 * wholePixels) / withValue);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('Area').selectOption('');
    await poll(() => page.locator('#chart-message').textContent()).toContain(`The map shows ${withValue} cell`);
    await poll(() => paintedPixels(page)).toBe(wholePixels);
    expect(await page.getByRole('group', { name: 'Map of the contiguous United States' }).count()).toBe(1);
    expect(await page.locator('#map-caption').textContent()).toMatch(/^Contiguous United States: ecoregion outlines/);

    // The change against the baseline: the diverging scale of the answer.
    await page.getByLabel('Show the change against a historic baseline').check();
    const change = await api<MapAnswer>('/api/climate-data/map/RCP85/indicator/frost_days/?agg=10th,median,90th&dataset=NEX-GDDP&years=2031:2050&relative_to=1971');
    expect(change.color_scale.kind).toBe('diverging');
    await poll(() => legend(page)).toEqual(change.color_scale.colors.map((c, k, all) => [rgb(c), k === 0 ? `below ${change.color_scale.breaks[1]}` : k === all.length - 1 ? `${change.color_scale.breaks[k]} and above` : `${change.color_scale.breaks[k]} to ${change.color_scale.breaks[k + 1]}`]));
    await dot.focus();
    await poll(() => page.locator('#map-readout').textContent()).toBe(`${cellText(change, i, 'median')}; ${city.properties.name}, ${city.properties.admin}.`);
    await poll(() => cellPixel(page, city.id)).toBe(rgb(colourOf(change.color_scale, change.values.median![i]!)));
    expect(await page.locator('#map-legend-title').textContent()).toMatch(/^Change in Frost Days from 1971-2000 \(days\)$/);

    // A reload keeps the view; Enter on a city opens its chart.
    await page.reload();
    await poll(() => legend(page)).toHaveLength(change.color_scale.colors.length);
    await dot.focus();
    await dot.press('Enter');
    await page.getByRole('region', { name: 'Chart' }).locator('canvas').waitFor();
    expect(await page.getByLabel('View').inputValue()).toBe('time');
    expect(await page.locator('#place-current').textContent()).toBe(`${city.properties.name}, ${city.properties.admin}`);
    expect(await page.locator('#map-legend').isHidden()).toBe(true);
    expect(await page.locator('#map-readout').isHidden()).toBe(true);
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);
});
