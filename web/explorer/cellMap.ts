/**
 * The map view's cells: an indicator for every map cell the build has (GET
 * /api/climate-data/map/{scenario}/indicator/{name}/), painted on a canvas that the map puts under
 * its outlines, with the answer's own legend, and the words the pointer or the focus reads.
 */

export interface ColourScale {
  kind: 'sequential' | 'diverging';
  palette: string;
  /** Ascending; class i holds values in [breaks[i], breaks[i + 1]). */
  breaks: number[];
  /** One per class. */
  colors: string[];
}

export interface MapAnswer {
  units: string;
  grid: { resolution: number; origin: { lat: number; lon: number }; rows: number; cols: number };
  cells: { id: number[]; lat: number[]; lon: number[] };
  values: Record<string, (number | null)[]>;
  models: number[];
  color_scale: ColourScale;
}

/** The class colour of a value: below the first break the first colour, above the last the last. */
export function colourOf(scale: ColourScale, value: number): string {
  let k = 0;
  while (k < scale.colors.length - 1 && value >= scale.breaks[k + 1]!) k++;
  return scale.colors[k]!;
}

/** The position in the answer's cells of the cell holding (lat, lon), or -1. */
export function cellIndexAt(answer: MapAnswer, lat: number, lon: number): number {
  const { resolution, origin, cols } = answer.grid;
  const row = Math.floor((lat - origin.lat) / resolution);
  const col = Math.floor((((lon - origin.lon) % 360) + 360) % 360 / resolution);
  const id = row * cols + col;
  // Cells come in id order.
  const ids = answer.cells.id;
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ids[mid] === id) return mid;
    if (ids[mid]! < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** A number as the table shows it: two decimals at most. */
export const shown = (v: number) => String(Math.round(v * 100) / 100);

const degrees = (v: number, pos: string, neg: string) => `${shown(Math.abs(v))}°${v >= 0 ? pos : neg}`;

/**
 * What a cell holds, in words: "Cell 40.375°N 74.125°W: median 40.67 days (10th 25.2, 90th 43.07),
 * 3 models". `stat` first; the other statistics of the answer in brackets.
 */
export function cellText(answer: MapAnswer, i: number, stat: string): string {
  const where = `Cell ${degrees(answer.cells.lat[i]!, 'N', 'S')} ${degrees(answer.cells.lon[i]!, 'E', 'W')}`;
  const value = answer.values[stat]?.[i];
  if (value === null || value === undefined) return `${where}: no value`;
  const others = Object.keys(answer.values)
    .filter((s) => s !== stat && answer.values[s]![i] !== null)
    .map((s) => `${s} ${shown(answer.values[s]![i]!)}`);
  const models = answer.models[i]!;
  return `${where}: ${stat} ${shown(value)} ${answer.units}${others.length > 0 ? ` (${others.join(', ')})` : ''}, ${models} model${models === 1 ? '' : 's'}`;
}

/**
 * Paints each cell with a value of `stat` as its projected quadrilateral onto `canvas`, which covers
 * the map's `width` x `height` drawing at `scale` pixels per unit.
 */
export function paintCells(canvas: HTMLCanvasElement, answer: MapAnswer, stat: string, project: (lon: number, lat: number) => [number, number] | null, scale: number): void {
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  const values = answer.values[stat] ?? [];
  const h = answer.grid.resolution / 2;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) continue;
    const lat = answer.cells.lat[i]!;
    const lon = answer.cells.lon[i]!;
    const corners = [project(lon - h, lat - h), project(lon + h, lat - h), project(lon + h, lat + h), project(lon - h, lat + h)];
    if (corners.some((c) => c === null)) continue;
    ctx.fillStyle = colourOf(answer.color_scale, v);
    ctx.beginPath();
    corners.forEach((c, k) => (k === 0 ? ctx.moveTo(c![0] * scale, c![1] * scale) : ctx.lineTo(c![0] * scale, c![1] * scale)));
    ctx.closePath();
    ctx.fill();
    // A hairline of the same colour closes the seams antialiasing leaves between neighbours.
    ctx.strokeStyle = ctx.fillStyle;
    ctx.lineWidth = 0.5;
    ctx.stroke();
  }
}

/** The legend: a swatch and the range of each class, as a list a screen reader reads in order. */
export function renderLegend(container: HTMLElement, answer: MapAnswer, title: string): void {
  const { breaks, colors } = answer.color_scale;
  const heading = document.createElement('p');
  heading.className = 'legend-title';
  heading.id = 'map-legend-title';
  heading.textContent = title;
  const list = document.createElement('ul');
  list.setAttribute('aria-labelledby', heading.id);
  colors.forEach((colour, k) => {
    const item = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = colour;
    swatch.setAttribute('aria-hidden', 'true');
    const lo = shown(breaks[k]!);
    const hi = shown(breaks[k + 1]!);
    // The end classes also hold what lies beyond them.
    const label = k === 0 ? `below ${hi}` : k === colors.length - 1 ? `${lo} and above` : `${lo} to ${hi}`;
    item.append(swatch, document.createTextNode(label));
    list.append(item);
  });
  container.replaceChildren(heading, list);
}
