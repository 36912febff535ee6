import uPlot from 'uplot';
import { shownScenarios, STATISTICS } from './state.js';
import { formatValue, statisticValue, type Row } from './series.js';

/** Line colours with at least 4.5:1 contrast on white (WCAG AA for the legend's text too). */
export const COLORS: Record<string, { line: string; band: string }> = {
  historical: { line: '#4d4d4d', band: 'rgba(77, 77, 77, 0.18)' },
  RCP45: { line: '#1f5fa8', band: 'rgba(31, 95, 168, 0.18)' },
  RCP85: { line: '#b3361b', band: 'rgba(179, 54, 27, 0.18)' },
  ssp126: { line: '#2a7236', band: 'rgba(42, 114, 54, 0.18)' },
  ssp245: { line: '#1f5fa8', band: 'rgba(31, 95, 168, 0.18)' },
  ssp370: { line: '#8a5300', band: 'rgba(138, 83, 0, 0.18)' },
  ssp585: { line: '#b3361b', band: 'rgba(179, 54, 27, 0.18)' },
};
const OTHER = { line: '#6a3d9a', band: 'rgba(106, 61, 154, 0.18)' };
const colorOf = (scenario: string) => COLORS[scenario] ?? OTHER;

const HEIGHT = 360;
let current: uPlot | undefined;

/** The axis's year ticks without thousands separators or fractional years. */
const yearTicks = (_u: uPlot, splits: number[]) => splits.map((v) => (Number.isInteger(v) ? String(v) : ''));

/**
 * The chart of the scenarios on one time axis: per scenario its ensemble median as a line and the
 * 10th-90th percentile range across models as a band. uPlot's live legend is the hover read-out:
 * the period under the cursor and every series' value there.
 */
export function renderChart(container: HTMLElement, rows: Row[], yLabel: string, shown: string[]): void {
  current?.destroy();
  const scenarios = shownScenarios(shown);
  const data: (number | null)[][] = [rows.map((r) => r.x)];
  const series: uPlot.Series[] = [{ label: 'Period', value: (_u, _v, _s, idx) => (idx === null ? '' : (rows[idx]?.period ?? '')) }];
  const bands: uPlot.Band[] = [];
  for (const s of scenarios) {
    const color = colorOf(s.name);
    const first = data.length;
    for (const stat of STATISTICS) {
      data.push(rows.map((r) => statisticValue(r, s.name, stat)));
      const median = stat === 'median';
      series.push({
        label: `${s.label} ${stat}`,
        stroke: median ? color.line : color.band,
        width: median ? 2 : 1,
        value: (_u, v) => formatValue(v),
        points: { show: median, size: 5, fill: color.line },
      });
    }
    // Indices: first = 10th, first + 2 = 90th.
    bands.push({ series: [first + 2, first], fill: color.band });
  }
  const width = Math.max(320, container.clientWidth || 800);
  current = new uPlot(
    {
      width,
      height: HEIGHT,
      scales: { x: { time: false } },
      series,
      bands,
      axes: [
        { label: 'Year', stroke: '#222', grid: { stroke: '#e3e3e3' }, values: yearTicks },
        { label: yLabel, stroke: '#222', grid: { stroke: '#e3e3e3' }, size: 60 },
      ],
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
    },
    data as uPlot.AlignedData,
    container,
  );
  const canvas = container.querySelector('canvas');
  canvas?.setAttribute('role', 'img');
  canvas?.setAttribute('aria-label', `${yLabel} by year: ${scenarios.map((s) => s.label).join(', ')}; the numbers are in the data table below.`);
}

export function resizeChart(container: HTMLElement): void {
  current?.setSize({ width: Math.max(320, container.clientWidth || 800), height: HEIGHT });
}

/** The chart as a PNG: a white background, a title, the plot and a key of the scenarios' colours. */
export async function chartPng(title: string, shown: string[]): Promise<Blob> {
  if (!current) throw new Error('There is no chart to download yet.');
  const plot = current.ctx.canvas;
  const out = document.createElement('canvas');
  const top = 36;
  const bottom = 34;
  out.width = plot.width;
  out.height = plot.height + top + bottom;
  const ctx = out.getContext('2d')!;
  const scale = plot.width / current.width;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.fillStyle = '#111';
  ctx.font = `${16 * scale}px sans-serif`;
  ctx.fillText(title, 10 * scale, 24 * scale, out.width - 20);
  ctx.drawImage(plot, 0, top);
  let x = 10 * scale;
  const y = top + plot.height + 20;
  ctx.font = `${13 * scale}px sans-serif`;
  for (const s of shownScenarios(shown)) {
    ctx.fillStyle = colorOf(s.name).band;
    ctx.fillRect(x, y - 10, 28, 12);
    ctx.fillStyle = colorOf(s.name).line;
    ctx.fillRect(x, y - 5, 28, 2);
    ctx.fillStyle = '#111';
    const text = `${s.label}: median, 10th-90th percentile`;
    ctx.fillText(text, x + 34, y);
    x += 34 + ctx.measureText(text).width + 24;
  }
  return new Promise((resolve, reject) => out.toBlob((b) => (b ? resolve(b) : reject(new Error('The browser could not make the PNG.'))), 'image/png'));
}
