import { geoAlbers, geoPath, geoTransform, type GeoPermissibleObjects } from 'd3-geo';
import { apiJson } from './api.js';
import { cityName } from './citySearch.js';
import { cellIndexAt, cellText, paintCells, type MapAnswer } from './cellMap.js';
import { mapKeyboard } from './mapKeyboard.js';
import { nameList } from './placeDatasets.js';
import type { CityFeature, CityPage } from './types.js';

/** The contiguous United States, minlon,minlat,maxlon,maxlat (the API's in_bbox order). */
const CONUS: [number, number, number, number] = [-125, 24, -66.5, 49.5];
const WIDTH = 640;
const HEIGHT = 400;
const SVG = 'http://www.w3.org/2000/svg';

/** An ecoregion as /api/region/ lists it. */
export interface RegionListItem {
  id: number;
  level1_description: string;
  level2_description: string;
}

/**
 * The cities with climate data (a build has data for cells, so every city in a cell with data has
 * it, not only those the build was made for): all cities of the map's box, page by page, filtered
 * on their datasets. The API has no filter for it; the pages are cached by the browser.
 */
export async function citiesWithData(token: string): Promise<CityFeature[]> {
  const found: CityFeature[] = [];
  for (let page = 1; ; page++) {
    const answer = await apiJson<CityPage>(`/api/city/?in_bbox=${CONUS.join(',')}&page_size=1000&page=${page}`, token);
    found.push(...answer.features.filter((c) => c.properties.datasets.length > 0));
    if (answer.next === null) return found;
  }
}

/** A city's dot as drawn, in the map's coordinates. */
export interface Dot {
  city: CityFeature;
  x: number;
  y: number;
}

/**
 * The dot drawn nearest to (x, y), of `dots` in painting order: on a tie the later one, drawn on
 * top. Measured on the map as the user sees it; over the few pixels between a click and a dot the
 * equal-area projection keeps distances as on the globe.
 */
export function nearestDot<T extends { x: number; y: number }>(dots: readonly T[], x: number, y: number): T | undefined {
  let best: T | undefined;
  let bestDistance = Infinity;
  for (const d of dots) {
    const distance = Math.hypot(d.x - x, d.y - y);
    if (distance <= bestDistance) {
      best = d;
      bestDistance = distance;
    }
  }
  return best;
}

/** The dot's accessible name: "Boston, MA, has NEX-GDDP and LOCA". */
export const dotName = (city: CityFeature): string => `${cityName(city)}, has ${nameList(city.properties.datasets)}`;

function svgElement<K extends keyof SVGElementTagNameMap>(name: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** The drawn map: what main.ts changes on it. */
export interface MapHandle {
  /** The ecoregions the map outlines, for the map view's choice of area. */
  readonly regions: RegionListItem[];
  /** Marks the chosen city (and makes it where Tab enters the dots). */
  mark(city: number | undefined): void;
  /**
   * Paints an indicator's map under the outlines, coloured by `stat` (undefined: none, the plain
   * map); the pointer over a cell and the focus on a dot then read the cell in `readout`.
   */
  showCells(answer: MapAnswer | undefined, stat: string): void;
  /**
   * Draws the map again fitted to an ecoregion's bounding box (undefined: the contiguous US), so
   * that a region's cells show at a size to read; the cells shown are painted again at that scale.
   */
  zoomTo(region: number | undefined): void;
}

/** Pixels of the cells' canvas per unit of the map's drawing: sharp on high-density screens. */
const CELL_PIXELS = 2;

/**
 * The box of a region's coordinates, minlon,minlat,maxlon,maxlat, read as plane coordinates as the
 * outlines are drawn: d3's geoBounds takes rings wound the other way than these GeoJSON files for
 * the inside, and gave the whole globe.
 */
function planarBounds(feature: GeoPermissibleObjects): [number, number, number, number] {
  const box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  const walk = (c: unknown): void => {
    if (!Array.isArray(c)) return;
    if (typeof c[0] === 'number') {
      const [lon, lat] = c as [number, number];
      box[0] = Math.min(box[0], lon);
      box[1] = Math.min(box[1], lat);
      box[2] = Math.max(box[2], lon);
      box[3] = Math.max(box[3], lat);
      return;
    }
    for (const item of c) walk(item);
  };
  const geometry = (feature as { geometry?: { coordinates?: unknown; geometries?: { coordinates: unknown }[] } }).geometry;
  walk(geometry?.coordinates ?? geometry?.geometries?.map((g) => g.coordinates));
  return box;
}

/** The part of a box within the contiguous US's (the regions reach into Canada and Mexico, where the map has no cells). */
const withinConus = ([w, s, e, n]: [number, number, number, number]): [number, number, number, number] => {
  const box: [number, number, number, number] = [Math.max(w, CONUS[0]), Math.max(s, CONUS[1]), Math.min(e, CONUS[2]), Math.min(n, CONUS[3])];
  return box[0] < box[2] && box[1] < box[3] ? box : CONUS;
};

/** The projection fitted to a box: its corners and the middle of its top edge (Albers bends it) within the drawing. */
function fitted([w, s, e, n]: [number, number, number, number]) {
  return geoAlbers().fitExtent([[8, 8], [WIDTH - 8, HEIGHT - 8]], { type: 'MultiPoint', coordinates: [[w, s], [e, s], [e, n], [w, n], [(w + e) / 2, n]] });
}

/**
 * The map: ecoregion outlines from /api/region/ and the cities with data as dots, in an Albers
 * equal-area projection of the contiguous US, or of one ecoregion's bounding box (zoomTo). A click
 * on a dot picks that dot's city, a click between dots the nearest city with data; from the
 * keyboard the dots are one listbox (web/explorer/mapKeyboard.ts) that Tab enters at the chosen
 * city, else the most populous. Nothing is fetched from other hosts (no tiles). With an
 * indicator's map shown, the cells are painted on a canvas placed in the drawing under the
 * outlines (an SVG image of it), and the pointer or the focused dot names the cell's value, its
 * models and the nearest city in `readout`.
 */
export async function renderMap(container: HTMLElement, token: string, pick: (city: CityFeature) => void, readout: HTMLElement): Promise<MapHandle> {
  const [cities, list] = await Promise.all([
    citiesWithData(token),
    apiJson<{ results: RegionListItem[] }>(`/api/region/?in_bbox=${CONUS.join(',')}&limit=1000`, token),
  ]);
  const regions = await Promise.all(list.results.map((r) => apiJson<GeoPermissibleObjects>(`/api/region/${r.id}/`, token)));

  let projection = fitted(CONUS);
  // Planar drawing of the projected rings: the outlines' winding order does not matter then, and
  // nothing is clipped to the globe (the regions reach into Canada and Mexico; the SVG clips).
  const planar = geoTransform({
    point(x, y) {
      const p = projection([x, y]);
      if (p) this.stream.point(p[0], p[1]);
    },
  });
  const path = geoPath(planar);

  const svg = svgElement('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'group', 'aria-label': 'Map of the contiguous United States' });
  const outlines = svgElement('g', { class: 'regions', 'aria-hidden': 'true' });
  const outlinePaths = regions.map(() => svgElement('path', {}));
  outlines.append(...outlinePaths);
  const cellImage = svgElement('image', { x: 0, y: 0, width: WIDTH, height: HEIGHT, class: 'cells', 'aria-hidden': 'true', preserveAspectRatio: 'none' });
  cellImage.style.display = 'none';
  svg.append(svgElement('rect', { x: 0, y: 0, width: WIDTH, height: HEIGHT, class: 'sea', 'aria-hidden': 'true' }), cellImage, outlines);

  let dots = svgElement('g', {});
  const ring = svgElement('circle', { r: 9, class: 'focus-ring', 'aria-hidden': 'true' });
  svg.append(dots, ring);
  const dotCity = new WeakMap<Element, CityFeature>();
  let drawn: (Dot & { el: SVGCircleElement })[] = [];
  let westToEast: typeof drawn = [];
  let enterAt: (entry: number) => void = () => {};
  let marked: number | undefined;
  /** The outlines and the dots of the cities inside the drawing, where the projection puts them. */
  const layout = () => {
    regions.forEach((region, k) => outlinePaths[k]!.setAttribute('d', path(region) ?? ''));
    const next = svgElement('g', { class: 'cities', role: 'listbox', 'aria-label': 'Cities with climate data', 'aria-describedby': 'map-keys' });
    drawn = [];
    // Painted from the least to the most populous: where dots overlap (a pixel is several km), the
    // larger city's dot is the one seen on top, and the one a click on it picks.
    for (const city of [...cities].sort((a, b) => a.properties.population - b.properties.population)) {
      const p = projection(city.geometry.coordinates);
      if (!p || p[0] < 0 || p[0] > WIDTH || p[1] < 0 || p[1] > HEIGHT) continue;
      const [x, y] = [Number(p[0].toFixed(1)), Number(p[1].toFixed(1))];
      const dot = svgElement('circle', { cx: x, cy: y, r: 5, role: 'option', 'aria-selected': 'false', 'data-city': city.id });
      // The title is the accessible name and the pointer's tooltip (an aria-label too would make
      // Chromium read the title again as the description).
      dot.append(Object.assign(svgElement('title', {}), { textContent: dotName(city) }));
      dotCity.set(dot, city);
      drawn.push({ city, x, y, el: dot });
      next.append(dot);
    }
    // Announced and walked west to east (Home, End), while painted by population.
    westToEast = [...drawn].sort((a, b) => a.x - b.x);
    westToEast.forEach((d, i) => {
      d.el.setAttribute('aria-posinset', String(i + 1));
      d.el.setAttribute('aria-setsize', String(westToEast.length));
    });
    dots.replaceWith(next);
    dots = next;
    ring.classList.remove('shown');
    enterAt = mapKeyboard(dots, westToEast, ring, (i) => pick(westToEast[i]!.city));
  };
  let cells: { answer: MapAnswer; stat: string } | undefined;
  /** Where the readout last looked: read again when the map's cells change under it. */
  let looked: { x: number; y: number; city?: CityFeature } | undefined;
  const toMap = (ev: MouseEvent): [number, number] => {
    const box = svg.getBoundingClientRect();
    return [((ev.clientX - box.left) / box.width) * WIDTH, ((ev.clientY - box.top) / box.height) * HEIGHT];
  };
  /** The cell under a point of the drawing, and the city with data nearest to it, in words. */
  const describe = (x: number, y: number, city?: CityFeature) => {
    looked = { x, y, city };
    if (!cells) return;
    const lonLat = projection.invert?.([x, y]);
    const i = lonLat ? cellIndexAt(cells.answer, lonLat[1], lonLat[0]) : -1;
    const nearest = city ?? nearestDot(drawn, x, y)?.city;
    const place = nearest ? `${city ? '' : 'nearest city with data: '}${cityName(nearest)}` : '';
    readout.textContent = i < 0 ? `No cell of this map here${place ? `; ${place}` : ''}.` : `${cellText(cells.answer, i, cells.stat)}; ${place}.`;
  };
  svg.addEventListener('pointermove', (ev) => {
    if (cells) describe(...toMap(ev));
  });
  // On the HTML container: Chromium makes an SVG element with a focus listener a Tab stop of its own.
  container.addEventListener('focusin', (ev) => {
    const city = ev.target instanceof Element ? dotCity.get(ev.target) : undefined;
    const dot = city && drawn.find((d) => d.city === city);
    if (dot) describe(dot.x, dot.y, city);
  });
  svg.addEventListener('click', (ev) => {
    // On a dot, the browser's own hit test names the topmost dot drawn under the pointer: its city,
    // not the nearest city to the pixel, which in a dense area is often a neighbour.
    const onDot = ev.target instanceof Element ? dotCity.get(ev.target) : undefined;
    if (onDot) return pick(onDot);
    // Between dots: the nearest city with data.
    const nearest = nearestDot(drawn, ...toMap(ev));
    if (nearest) pick(nearest.city);
  });
  container.replaceChildren(svg);
  const canvas = document.createElement('canvas');
  canvas.width = WIDTH * CELL_PIXELS;
  canvas.height = HEIGHT * CELL_PIXELS;
  const paint = () => {
    if (!cells) return;
    paintCells(canvas, cells.answer, cells.stat, (lon, lat) => projection([lon, lat]), CELL_PIXELS);
    cellImage.setAttribute('href', canvas.toDataURL('image/png'));
  };
  const mark = (id: number | undefined) => {
    marked = id;
    const at = westToEast.findIndex((d) => d.city.id === id);
    for (const [i, d] of westToEast.entries()) d.el.setAttribute('aria-selected', String(i === at));
    // The most populous city is painted last.
    enterAt(at >= 0 ? at : westToEast.indexOf(drawn.at(-1)!));
  };
  let zoomed: number | undefined;
  layout();

  return {
    regions: list.results,
    mark,
    showCells(answer, stat) {
      cells = answer ? { answer, stat } : undefined;
      svg.classList.toggle('with-cells', answer !== undefined);
      readout.textContent = '';
      // Only the map view reads cells: the other views keep the page's layout as it was.
      readout.hidden = answer === undefined;
      if (!answer) {
        cellImage.style.display = 'none';
        return;
      }
      paint();
      cellImage.style.display = '';
      if (looked) describe(looked.x, looked.y, looked.city);
    },
    zoomTo(region) {
      if (zoomed === region) return;
      zoomed = region;
      const k = region === undefined ? -1 : list.results.findIndex((r) => r.id === region);
      projection = fitted(k >= 0 ? withinConus(planarBounds(regions[k]!)) : CONUS);
      svg.setAttribute('aria-label', k >= 0 ? `Map of the ecoregion ${list.results[k]!.level2_description}` : 'Map of the contiguous United States');
      layout();
      mark(marked);
      looked = undefined;
      paint();
    },
  };
}
