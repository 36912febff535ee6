import { COLORS } from './chart.js';
import { formatValue } from './series.js';
import { shownScenarios, STATISTICS } from './state.js';

/**
 * The "By warming level" view: per global warming level, each scenario's spread across the models
 * that reach it (10th percentile, median, 90th percentile) and how many they are, side by side;
 * drawn as SVG (a bar from the 10th to the 90th percentile, a dot at the median, n under it) with
 * the same numbers in the data table.
 */

/** GET /api/warming-level/, the part the page reads. */
export interface WarmingListing {
  levels: string[];
  datasets: { name: string; scenarios: { name: string; reaching_in_data: Record<string, number> }[] }[];
}

/** level -> statistic (and model_count) -> value: the API's data at warming levels, yearly. */
export type LevelData = Record<string, Record<string, number | null>>;

/** The levels a scenario of a dataset has models at in this build's years (a level none reaches is a 400 of the API). */
export function levelsReached(listing: WarmingListing, dataset: string, scenario: string): string[] {
  const reaching = listing.datasets.find((d) => d.name === dataset)?.scenarios.find((s) => s.name === scenario)?.reaching_in_data ?? {};
  return listing.levels.filter((l) => (reaching[l] ?? 0) > 0);
}

const SVG = 'http://www.w3.org/2000/svg';
function svg<K extends keyof SVGElementTagNameMap>(name: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Round numbers for the y axis: about 5 ticks, from one at or below lo to one at or above hi. */
function ticks(lo: number, hi: number): number[] {
  const span = hi - lo || Math.abs(hi) || 1;
  const raw = span / 5;
  const step = [1, 2, 2.5, 5, 10].map((m) => m * 10 ** Math.floor(Math.log10(raw))).find((s) => s >= raw)!;
  const out: number[] = [];
  const last = Math.ceil(hi / step - 1e-9);
  for (let k = Math.floor(lo / step + 1e-9); k <= last; k++) out.push(k * step);
  return out;
}

const label = (level: string) => `${level} °C`;

export function renderLevelChart(container: HTMLElement, answers: Record<string, LevelData>, levels: string[], yLabel: string): void {
  const scenarios = shownScenarios(Object.keys(answers));
  const width = Math.max(320, container.clientWidth || 800);
  const height = 380;
  const m = { left: 70, right: 16, top: 16, bottom: 64 };
  const values = scenarios.flatMap((s) => levels.flatMap((l) => STATISTICS.map((stat) => answers[s.name]?.[l]?.[stat]))).filter((v): v is number => typeof v === 'number');
  const lo = Math.min(0, ...values);
  const hi = Math.max(0, ...values);
  const yTicks = ticks(lo, hi);
  const y0 = yTicks[0]!;
  const y1 = yTicks.at(-1)!;
  const y = (v: number) => m.top + ((y1 - v) / (y1 - y0 || 1)) * (height - m.top - m.bottom);
  const groupWidth = (width - m.left - m.right) / Math.max(1, levels.length);
  const barWidth = Math.min(28, (groupWidth * 0.8) / Math.max(1, scenarios.length));
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', class: 'level-chart' });
  root.setAttribute(
    'aria-label',
    `${yLabel} at each global warming level: per scenario (${scenarios.map((s) => s.label).join(', ')}) the 10th to 90th percentile across the models that reach the level, the median and the number of models; the numbers are in the data table below.`,
  );
  for (const t of yTicks) {
    root.append(svg('line', { x1: m.left, x2: width - m.right, y1: y(t), y2: y(t), class: t === 0 ? 'zero' : 'grid' }));
    root.append(svg('text', { x: m.left - 6, y: y(t) + 4, 'text-anchor': 'end', class: 'tick' }, formatValue(t)));
  }
  root.append(svg('text', { x: 14, y: m.top + (height - m.top - m.bottom) / 2, 'text-anchor': 'middle', transform: `rotate(-90 14 ${m.top + (height - m.top - m.bottom) / 2})`, class: 'axis-label' }, yLabel));
  levels.forEach((level, i) => {
    const centre = m.left + groupWidth * (i + 0.5);
    root.append(svg('text', { x: centre, y: height - m.bottom + 36, 'text-anchor': 'middle', class: 'level-label' }, label(level)));
    scenarios.forEach((s, k) => {
      const stats = answers[s.name]?.[level];
      if (!stats) return;
      const x = centre + (k - (scenarios.length - 1) / 2) * barWidth * 1.15;
      const color = COLORS[s.name] ?? { line: '#6a3d9a', band: 'rgba(106, 61, 154, 0.18)' };
      const group = svg('g', { class: 'level-bar', 'data-scenario': s.name, 'data-level': level });
      group.append(svg('title', {}, `${s.label} at ${label(level)}: 10th ${formatValue(stats['10th'])}, median ${formatValue(stats.median)}, 90th ${formatValue(stats['90th'])}, ${stats.model_count} models`));
      const p10 = stats['10th'];
      const p90 = stats['90th'];
      if (typeof p10 === 'number' && typeof p90 === 'number') {
        group.append(svg('rect', { x: x - barWidth / 2, y: y(p90), width: barWidth, height: Math.max(1, y(p10) - y(p90)), fill: color.band, stroke: color.line }));
      }
      if (typeof stats.median === 'number') group.append(svg('circle', { cx: x, cy: y(stats.median), r: 4, fill: color.line }));
      group.append(svg('text', { x, y: height - m.bottom + 16, 'text-anchor': 'middle', class: 'count' }, `n=${stats.model_count ?? 0}`));
      root.append(group);
    });
  });
  // The key: each scenario's colour.
  const key = document.createElement('ul');
  key.className = 'level-key';
  for (const s of scenarios) {
    const item = document.createElement('li');
    const swatch = svg('svg', { width: 14, height: 14, 'aria-hidden': 'true' });
    swatch.append(svg('rect', { x: 0, y: 0, width: 14, height: 14, fill: (COLORS[s.name] ?? { line: '#6a3d9a' }).line }));
    item.append(swatch, ` ${s.label}: 10th-90th percentile across models, median (dot), n models`);
    key.append(item);
  }
  container.replaceChildren(root, key);
}

/** The chart's numbers: one row per level, then 10th, median, 90th and the model count per scenario. */
export function renderLevelTable(container: HTMLElement, answers: Record<string, LevelData>, levels: string[], units: string): void {
  const columns = [...STATISTICS, 'models'] as const;
  const scenarios = shownScenarios(Object.keys(answers));
  const table = document.createElement('table');
  table.setAttribute('aria-label', 'Data table');
  const caption = document.createElement('caption');
  caption.textContent = `At each global warming level: the 10th percentile, median and 90th percentile across the models that reach it, in ${units}, and how many models they are.`;
  const th = (text: string, scope: string, span = 1) => {
    const cell = document.createElement('th');
    cell.scope = scope;
    cell.textContent = text;
    if (span > 1) cell.colSpan = span;
    return cell;
  };
  const groups = document.createElement('tr');
  const levelHead = th('Warming level', 'col');
  levelHead.rowSpan = 2;
  groups.append(levelHead, ...scenarios.map((s) => th(s.label, 'colgroup', columns.length)));
  const stats = document.createElement('tr');
  for (const _ of scenarios) stats.append(...columns.map((c) => th(c, 'col')));
  const head = document.createElement('thead');
  head.append(groups, stats);
  const body = document.createElement('tbody');
  for (const level of levels) {
    const tr = document.createElement('tr');
    tr.append(th(label(level), 'row'));
    for (const s of scenarios) {
      const values = answers[s.name]?.[level];
      for (const c of columns) {
        const td = document.createElement('td');
        td.textContent = !values ? '' : c === 'models' ? String(values.model_count ?? '') : formatValue(values[c]);
        tr.append(td);
      }
    }
    body.append(tr);
  }
  table.append(caption, head, body);
  container.replaceChildren(table);
}
