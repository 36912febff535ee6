import { ApiError, apiGet, apiJson, signIn } from './api.js';
import { chartPng, renderChart, resizeChart } from './chart.js';
import { cityName, citySearch } from './citySearch.js';
import { dispositionFilename, saveBlob } from './download.js';
import { renderLegend, type MapAnswer } from './cellMap.js';
import { renderMap, type MapHandle } from './map.js';
import { ownParams, renderParams } from './params.js';
import { datasetForPlace, placeDatasetsNote } from './placeDatasets.js';
import { joinScenarios } from './series.js';
import { session } from './session.js';
import { inputsNote, missingInputs } from './indicatorInputs.js';
import { datasetScenarios, indicatorPath, mapPath, queryFromState, stateFromQuery, type ViewState } from './state.js';
import { renderTable } from './table.js';
import type { CityFeature, Dataset, HistoricRange, Indicator, IndicatorAnswer, IndicatorData } from './types.js';
import { windowsWithin, yearSpan } from './windows.js';
import { levelsReached, renderLevelChart, renderLevelTable, type LevelData, type WarmingListing } from './levels.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const el = {
  signInSection: $('sign-in-section'),
  signInForm: $<HTMLFormElement>('sign-in'),
  email: $<HTMLInputElement>('email'),
  password: $<HTMLInputElement>('password'),
  signInMessage: $('sign-in-message'),
  signOut: $<HTMLButtonElement>('sign-out'),
  explorer: $('explorer'),
  placeCurrent: $('place-current'),
  search: $<HTMLInputElement>('city-search'),
  results: $('city-results'),
  map: $('map'),
  mapLegend: $('map-legend'),
  mapReadout: $('map-readout'),
  mapFields: $('map-fields'),
  mapScenario: $<HTMLSelectElement>('map-scenario'),
  mapLevel: $<HTMLSelectElement>('map-level'),
  mapYearsField: $('map-years-field'),
  mapYears: $<HTMLInputElement>('map-years'),
  mapStat: $<HTMLSelectElement>('map-stat'),
  mapArea: $<HTMLSelectElement>('map-area'),
  mapCaption: $('map-caption'),
  mapCaptionArea: $('map-caption-area'),
  indicator: $<HTMLSelectElement>('indicator'),
  indicatorDescription: $('indicator-description'),
  params: $('indicator-params'),
  dataset: $<HTMLSelectElement>('dataset'),
  datasetHelp: $('dataset-help'),
  view: $<HTMLSelectElement>('view'),
  viewHelp: $('view-help'),
  timeAggregationField: $('time-aggregation-field'),
  timeAggregation: $<HTMLSelectElement>('time_aggregation'),
  windowsField: $('windows-field'),
  windows: $<HTMLInputElement>('windows'),
  units: $<HTMLSelectElement>('units'),
  relative: $<HTMLInputElement>('relative'),
  baselineField: $('baseline-field'),
  baseline: $<HTMLSelectElement>('relative_to'),
  chartTitle: $('chart-title'),
  chartMessage: $('chart-message'),
  chart: $('chart'),
  downloads: $('downloads'),
  csvButtons: $('csv-buttons'),
  png: $<HTMLButtonElement>('png'),
  table: $('table-wrap'),
};

let state: ViewState = stateFromQuery(location.search);
let indicators: Indicator[] = [];
let datasets: Dataset[] = [];
let city: CityFeature | undefined;
let mapShown = false;
/** The map, once it is drawn: it marks the chosen city and shows the map view's cells. */
let mapHandle: Promise<MapHandle> | undefined;
/** The map view's last answer, and the request it answered: a new statistic repaints it. */
let cellsShown: { path: string; answer: MapAnswer } | undefined;
let drawing: AbortController | undefined;
/** What the chart shows now: the PNG's title and the scenarios it holds. */
let shown: { title: string; scenarios: string[] } | undefined;
/** Per scenario, the windows its chart, table and CSV were asked for (window aggregation only). */
let scenarioWindows: Record<string, string> = {};
/** Per scenario, the warming levels its answer and CSV were asked for (the warming-level view). */
let scenarioLevels: Record<string, string> = {};
/** GET /api/warming-level/, fetched when the warming-level view is first shown. */
let warmingListing: Promise<WarmingListing> | undefined;
/** Settles when start() has put the indicator list, datasets (with their historic ranges) and place into the page (or reported why not). */
let reference: Promise<unknown> = Promise.resolve();

function writeUrl(): void {
  history.replaceState(null, '', `?${queryFromState(state)}`);
}

function option(value: string, text: string): HTMLOptionElement {
  const o = document.createElement('option');
  o.value = value;
  o.textContent = text;
  return o;
}

function showSignIn(message = ''): void {
  drawing?.abort();
  el.explorer.hidden = true;
  el.signOut.hidden = true;
  el.signInSection.hidden = false;
  el.signInMessage.textContent = message;
  el.password.value = '';
  el.email.focus();
}

/** An error as a sentence where it happened; an ended session goes back to the sign-in form. */
function report(err: unknown, where: HTMLElement = el.chartMessage): void {
  if (err instanceof ApiError && err.signedOut) {
    session.clear();
    showSignIn(err.message);
    return;
  }
  if ((err as Error).name === 'AbortError') return;
  where.textContent = err instanceof ApiError ? err.message : `Something went wrong in the page: ${(err as Error).message}`;
  where.classList.add('error');
}

const currentIndicator = (): Indicator | undefined => indicators.find((i) => i.name === state.indicator);
/** The historic ranges of the view's dataset (1981-2010 is CMIP6's only). */
const datasetRanges = (): HistoricRange[] => datasets.find((d) => d.name === state.dataset)?.historic_ranges ?? [];
/** The scenarios of the view's dataset: one request, line and table group each. */
const scenarios = () => datasetScenarios(state.dataset, datasets.find((d) => d.name === state.dataset)?.scenarios.map((s) => s.name));

/** The map view's scenario: the one chosen, else the dataset's last (its strongest forcing). */
const mapScenario = (): string => state.map_scenario || scenarios().at(-1)!.name;
/** The map view's ecoregion, or undefined for the contiguous US. */
const mapArea = (): number | undefined => (state.map_area ? Number(state.map_area) : undefined);
/** The map fitted to an ecoregion (or the contiguous US), its caption naming what it shows. */
function zoom(map: MapHandle, region: number | undefined): void {
  map.zoomTo(region);
  const name = map.regions.find((r) => r.id === region)?.level2_description;
  el.mapCaptionArea.textContent = name ? `Ecoregion ${name}` : 'Contiguous United States';
}

/** The indicator-dependent controls (parameters, aggregations, units) for state.indicator. */
function renderIndicatorControls(): void {
  const indicator = currentIndicator() ?? indicators.find((i) => i.name === 'frost_days') ?? indicators[0];
  if (!indicator) return;
  state.indicator = indicator.name;
  el.indicator.value = indicator.name;
  // Offered where the view's dataset has the inputs, and why not where it has not.
  const dataset = datasets.find((d) => d.name === state.dataset);
  for (const o of el.indicator.options) {
    const i = indicators.find((x) => x.name === o.value);
    const missing = i && dataset ? missingInputs(i, dataset) : [];
    o.disabled = missing.length > 0 && o.value !== indicator.name;
    o.textContent = missing.length > 0 ? `${i!.label} (needs ${missing.join(', ')})` : (i?.label ?? o.value);
  }
  el.indicatorDescription.textContent = (dataset && inputsNote(indicator, dataset, datasets)) ?? indicator.description;
  const names = new Set(ownParams(indicator).map((p) => p.name));
  const kept = Object.fromEntries(Object.entries(state.params).filter(([k]) => names.has(k)));
  state.params = renderParams(el.params, indicator, kept, datasetRanges(), (values) => {
    state.params = values;
    update();
  });
  for (const o of el.timeAggregation.options) o.disabled = !indicator.valid_aggregations.includes(o.value);
  if (!indicator.valid_aggregations.includes(state.time_aggregation)) state.time_aggregation = 'yearly';
  el.units.replaceChildren(...indicator.available_units.map((u) => option(u, u === indicator.default_units ? `${u} (default)` : u)));
  // '' is the indicator's default units, left out of the address and the requests.
  if (!indicator.available_units.includes(state.units) || state.units === indicator.default_units) state.units = '';
  el.units.value = state.units || indicator.default_units;
}

function renderViewControls(): void {
  // A dataset the place has no data in stays listed, marked and not selectable.
  const has = city?.properties.datasets;
  for (const o of el.dataset.options) {
    o.disabled = has !== undefined && !has.includes(o.value);
    o.textContent = o.disabled ? `${o.value} (no data for this place)` : o.value;
  }
  el.dataset.value = state.dataset;
  const ranges = datasetRanges();
  const offered = ranges.map((r) => String(r.start_year)).join(',');
  // Another dataset's baseline, or one it lacks, is not offered (nor kept).
  if (el.baseline.dataset.offered !== offered) {
    el.baseline.replaceChildren(...ranges.map((r) => option(String(r.start_year), `${r.start_year}-${r.end_year}`)));
    el.baseline.dataset.offered = offered;
  }
  if (state.relative_to && ranges.length > 0 && !ranges.some((r) => String(r.start_year) === state.relative_to)) state.relative_to = String(ranges.at(-1)!.start_year);
  el.view.value = state.view;
  const byLevel = state.view === 'warming_level';
  const byMap = state.view === 'map';
  el.viewHelp.hidden = !byLevel;
  el.timeAggregationField.hidden = byLevel || byMap;
  el.png.hidden = byLevel || byMap;
  el.timeAggregation.value = state.time_aggregation;
  el.windowsField.hidden = byLevel || byMap || state.time_aggregation !== 'window';
  el.mapFields.hidden = !byMap;
  const offeredScenarios = scenarios();
  if (el.mapScenario.dataset.offered !== state.dataset) {
    el.mapScenario.replaceChildren(...offeredScenarios.map((sc) => option(sc.name, sc.label)));
    el.mapScenario.dataset.offered = state.dataset;
  }
  if (!offeredScenarios.some((sc) => sc.name === state.map_scenario)) state.map_scenario = '';
  el.mapScenario.value = mapScenario();
  el.mapLevel.value = state.map_level;
  el.mapYearsField.hidden = state.map_level !== '';
  el.mapYears.value = state.map_years;
  el.mapStat.value = state.map_stat;
  el.mapArea.value = state.map_area;
  el.windows.value = state.windows;
  el.relative.checked = state.relative_to !== '';
  el.baselineField.hidden = !el.relative.checked;
  // Unchecked, the baseline offered is the most recent range, the API's default historic range.
  el.baseline.value = state.relative_to || String(ranges.at(-1)?.start_year ?? '');
}

function yLabel(indicator: Indicator, units: string): string {
  if (!state.relative_to) return `${indicator.label} (${units})`;
  const range = datasetRanges().find((r) => String(r.start_year) === state.relative_to);
  return `Change in ${indicator.label} from ${range ? `${range.start_year}-${range.end_year}` : state.relative_to} (${units})`;
}

/** Nothing to draw: the sentence instead of an empty chart (or the previous place's). */
function clearView(message: string): void {
  el.chart.removeAttribute('aria-busy');
  el.chart.replaceChildren();
  el.table.replaceChildren();
  el.downloads.hidden = true;
  el.chartTitle.textContent = '';
  shown = undefined;
  el.chartMessage.textContent = message;
  el.chartMessage.classList.add('error');
  // The map waits for the first chart, and there is none to wait for.
  if (!mapShown) showMap();
}

/** The dataset's scenarios' answers for the view, one request each; the chart and table from those that answered. */
async function draw(): Promise<void> {
  drawing?.abort();
  if (state.view === 'map') return drawCells();
  if (cellsShown) {
    cellsShown = undefined;
    el.mapLegend.hidden = true;
    void mapHandle?.then((m) => (m.showCells(undefined, state.map_stat), zoom(m, undefined)));
  }
  if (state.city === undefined) {
    el.chartMessage.textContent = 'Choose a place: search for a city or click the map.';
    return;
  }
  if (city?.properties.datasets.length === 0) {
    // Every climate request for it would be a 404.
    clearView(`${cityName(city)} has no climate data in this build: choose a dot on the map, or a city the search lists with climate data.`);
    return;
  }
  const viewDataset = datasets.find((d) => d.name === state.dataset);
  const viewIndicator = currentIndicator();
  const lacking = viewIndicator && viewDataset && inputsNote(viewIndicator, viewDataset, datasets);
  if (lacking) {
    // Every request would be a 400 naming the variable.
    clearView(lacking);
    return;
  }
  const token = session.token();
  if (!token) return showSignIn();
  const controller = new AbortController();
  drawing = controller;
  el.chartMessage.classList.remove('error');
  el.chartMessage.textContent = 'Loading…';
  el.chart.setAttribute('aria-busy', 'true');
  if (state.view === 'warming_level') return drawLevels(token, controller);
  const windows = state.time_aggregation === 'window' ? await windowsPerScenario(token, controller.signal) : {};
  if (controller.signal.aborted) return;
  // The requests go out at once; the indicator's label (for the axis) may still be on its way.
  const asked = scenarios();
  const requests = asked.map((s) =>
    windows[s.name] === ''
      ? Promise.reject(new ApiError("None of the windows falls within this scenario's years.", 400))
      : apiJson<IndicatorAnswer>(indicatorPath(state, s.name, undefined, windows[s.name]), token, controller.signal),
  );
  const [results] = await Promise.all([Promise.allSettled(requests), reference]);
  if (controller.signal.aborted) return;
  scenarioWindows = windows;
  el.chart.removeAttribute('aria-busy');
  // No indicator list: start() has put its error in the page.
  const indicator = currentIndicator();
  if (!indicator) return;
  const answers: Record<string, IndicatorData> = {};
  const problems: string[] = [];
  let units = state.units;
  results.forEach((r, i) => {
    const scenario = asked[i]!;
    if (r.status === 'fulfilled') {
      answers[scenario.name] = r.value.data;
      units = r.value.units;
    } else if (r.reason instanceof ApiError && !r.reason.signedOut) {
      problems.push(`${scenario.label}: ${r.reason.message}`);
    }
  });
  const failed = results.find((r) => r.status === 'rejected');
  if (failed && failed.reason instanceof ApiError && failed.reason.signedOut) return report(failed.reason);
  if (failed && !(failed.reason instanceof ApiError)) return report(failed.reason);
  const rows = joinScenarios(answers);
  const names = Object.keys(answers);
  if (rows.length === 0) {
    // Nothing to draw: the sentence instead of an empty chart.
    const unique = [...new Set(results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : [])))];
    return clearView(unique.length > 0 ? unique.join(' ') : 'The API has no values for this choice of years and aggregation.');
  }
  const label = yLabel(indicator, units);
  el.chartMessage.textContent = problems.length > 0 ? `Not shown: ${problems.join(' ')}` : '';
  el.chartMessage.classList.toggle('error', problems.length > 0);
  renderChart(el.chart, rows, label, names);
  renderTable(el.table, rows, units, names);
  shown = { title: `${label}, ${city ? cityName(city) : `city ${state.city}`}, ${state.dataset}`, scenarios: names };
  el.chartTitle.textContent = shown.title;
  el.downloads.hidden = false;
  csvButtons(asked, names);
  // After the chart is on the screen: the map's outlines are most of the page's data.
  requestAnimationFrame(() =>
    setTimeout(() => {
      performance.mark('explorer-chart-shown');
      if (!mapShown) showMap();
    }),
  );
}

/**
 * The map view: the indicator for every map cell of the build, one scenario and period, coloured
 * by the chosen statistic with the answer's legend; the chart's place says what the map shows.
 */
async function drawCells(): Promise<void> {
  const token = session.token();
  if (!token) return showSignIn();
  const controller = new AbortController();
  drawing = controller;
  el.chart.replaceChildren();
  el.table.replaceChildren();
  el.downloads.hidden = true;
  shown = undefined;
  el.chartTitle.textContent = '';
  el.chartMessage.classList.remove('error');
  el.chartMessage.textContent = 'Loading the map…';
  const scenario = mapScenario();
  const path = mapPath(state, scenario);
  let answer: MapAnswer;
  try {
    const [map, fetched] = await Promise.all([
      (mapHandle ??= showMap()),
      cellsShown?.path === path ? Promise.resolve(cellsShown.answer) : apiJson<MapAnswer>(path, token, controller.signal),
      reference,
    ]);
    if (controller.signal.aborted) return;
    answer = fetched;
    cellsShown = { path, answer };
    zoom(map, mapArea());
    map.showCells(answer, state.map_stat);
  } catch (err) {
    if (controller.signal.aborted) return;
    el.mapLegend.hidden = true;
    void mapHandle?.then((m) => (m.showCells(undefined, state.map_stat), zoom(m, mapArea())));
    return report(err);
  }
  const indicator = currentIndicator();
  if (!indicator) return;
  const label = yLabel(indicator, answer.units);
  const period = state.map_level ? `at ${state.map_level} °C of global warming` : state.map_years.replace(':', '-');
  const area = el.mapArea.selectedOptions[0]?.value ? `, ${el.mapArea.selectedOptions[0].textContent}` : '';
  const title = `${label}, ${state.map_stat} of the models, ${period}, ${scenarios().find((sc) => sc.name === scenario)?.label ?? scenario}, ${state.dataset}${area}`;
  renderLegend(el.mapLegend, answer, label);
  el.mapLegend.hidden = false;
  el.chartTitle.textContent = title;
  const withValue = (answer.values[state.map_stat] ?? []).filter((v) => v !== null).length;
  el.chartMessage.textContent = `The map shows ${withValue} cell${withValue === 1 ? '' : 's'} with a value. Point at a cell or move through the cities with the arrow keys to read it; pick a city to see its chart.`;
}

/** One CSV button per scenario asked for; those without an answer are there, disabled. */
function csvButtons(asked: { name: string; label: string }[], answered: string[]): void {
  el.csvButtons.replaceChildren(
    ...asked.map((s) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.csv = s.name;
      b.textContent = `${s.label} CSV`;
      b.disabled = !answered.includes(s.name);
      return b;
    }),
  );
}

/**
 * The warming-level view: each future scenario asked for the levels some of its models reach
 * (GET /api/warming-level/; the API refuses a level none reaches), then the spread per level
 * side by side and the table.
 */
async function drawLevels(token: string, controller: AbortController): Promise<void> {
  warmingListing ??= apiJson<WarmingListing>('/api/warming-level/', token);
  let listing: WarmingListing;
  try {
    listing = await warmingListing;
  } catch (err) {
    warmingListing = undefined;
    return report(err);
  }
  if (controller.signal.aborted) return;
  const asked = scenarios()
    .filter((s) => s.name !== 'historical')
    .map((s) => ({ ...s, levels: levelsReached(listing, state.dataset, s.name) }))
    .filter((s) => s.levels.length > 0);
  const results = await Promise.allSettled(asked.map((s) => apiJson<IndicatorAnswer>(indicatorPath(state, s.name, undefined, undefined, s.levels.join(',')), token, controller.signal)));
  await reference;
  if (controller.signal.aborted) return;
  el.chart.removeAttribute('aria-busy');
  const indicator = currentIndicator();
  if (!indicator) return;
  const failed = results.find((r) => r.status === 'rejected');
  if (failed && (!(failed.reason instanceof ApiError) || failed.reason.signedOut)) return report(failed.reason);
  const answers: Record<string, LevelData> = {};
  const problems: string[] = [];
  let units = state.units;
  results.forEach((r, i) => {
    if (r.status === 'fulfilled') {
      answers[asked[i]!.name] = r.value.data as LevelData;
      units = r.value.units;
    } else problems.push(`${asked[i]!.label}: ${(r.reason as Error).message}`);
  });
  scenarioLevels = Object.fromEntries(asked.map((s) => [s.name, s.levels.join(',')]));
  const names = Object.keys(answers);
  if (names.length === 0) return clearView(problems.length > 0 ? problems.join(' ') : `No model of ${state.dataset} reaches a warming level in its scenarios.`);
  const levels = listing.levels.filter((l) => names.some((n) => answers[n]![l] !== undefined));
  const label = yLabel(indicator, units);
  el.chartMessage.textContent = problems.length > 0 ? `Not shown: ${problems.join(' ')}` : '';
  el.chartMessage.classList.toggle('error', problems.length > 0);
  renderLevelChart(el.chart, answers, levels, label);
  renderLevelTable(el.table, answers, levels, units);
  shown = undefined;
  el.chartTitle.textContent = `${label} by global warming level, ${city ? cityName(city) : `city ${state.city}`}, ${state.dataset}`;
  el.downloads.hidden = false;
  csvButtons(asked, names);
  if (!mapShown) requestAnimationFrame(() => setTimeout(showMap));
}

/**
 * Each scenario's windows, from its years in the data: those of the yearly view's answer (the
 * browser's cache has it when that view was shown). A scenario whose years are unknown gets all
 * the windows, and its request then says what is wrong.
 */
async function windowsPerScenario(token: string, signal: AbortSignal): Promise<Record<string, string>> {
  const yearly = { ...state, time_aggregation: 'yearly', relative_to: '' };
  const asked = scenarios();
  const answers = await Promise.allSettled(asked.map((s) => apiJson<IndicatorAnswer>(indicatorPath(yearly, s.name), token, signal)));
  return Object.fromEntries(
    asked.map((s, i) => {
      const answer = answers[i]!;
      const span = answer.status === 'fulfilled' ? yearSpan(Object.keys(answer.value.data)) : undefined;
      return [s.name, span ? windowsWithin(state.windows, ...span) : state.windows];
    }),
  );
}

function showMap(): Promise<MapHandle> {
  const token = session.token();
  if (!token) {
    const none = Promise.reject(new ApiError('Signed out.', 401));
    none.catch(() => undefined);
    return none;
  }
  mapShown = true;
  const drawn = renderMap(el.map, token, choose, el.mapReadout).then((map) => {
    // Also a place chosen while the map was loading.
    map.mark(state.city);
    // The map view's areas: the ecoregions the map outlines, by name.
    const regions = [...map.regions].sort((a, b) => a.level2_description.localeCompare(b.level2_description));
    el.mapArea.replaceChildren(option('', 'the contiguous United States'), ...regions.map((r) => option(String(r.id), r.level2_description)));
    el.mapArea.value = state.map_area;
    return map;
  });
  mapHandle = drawn;
  drawn.catch((err: unknown) => {
    mapShown = false;
    mapHandle = undefined;
    report(err, el.mapCaption);
  });
  return drawn;
}

function showPlace(): void {
  el.placeCurrent.textContent = city
    ? `${cityName(city)}${city.properties.datasets.length > 0 ? '' : ' (this city has no climate data in this build)'}`
    : 'No place chosen yet.';
}

/**
 * The place's datasets under the dataset control; a view on a dataset the place lacks moves to one
 * it has (and says so), so that no request can only answer 404.
 */
function fitDatasetToPlace(): void {
  if (!city) {
    el.datasetHelp.textContent = '';
    return;
  }
  const has = city.properties.datasets;
  const from = state.dataset;
  state.dataset = datasetForPlace(from, has) ?? from;
  el.datasetHelp.textContent = placeDatasetsNote(cityName(city), has, from);
  // The historic_range choices and the scenarios follow the dataset.
  if (state.dataset !== from) renderIndicatorControls();
}

function choose(picked: CityFeature): void {
  city = picked;
  state.city = picked.id;
  // On the map view, a place picked opens its chart.
  if (state.view === 'map') state.view = 'time';
  void mapHandle?.then((m) => m.mark(picked.id));
  showPlace();
  fitDatasetToPlace();
  update();
}

function update(): void {
  renderViewControls();
  writeUrl();
  void draw();
}

/** The city of the address; undefined if this build has no such city. */
function placeOf(id: number, token: string): Promise<CityFeature | undefined> {
  return apiJson<CityFeature>(`/api/city/${id}/`, token).catch((err: unknown) => (err instanceof ApiError && err.status === 404 ? undefined : Promise.reject(err)));
}

async function start(): Promise<void> {
  const token = session.token();
  if (!token) return showSignIn();
  el.signInSection.hidden = true;
  el.explorer.hidden = false;
  el.signOut.hidden = false;
  const metadata = Promise.all([
    apiJson<Indicator[]>('/api/indicator/', token),
    apiJson<Dataset[]>('/api/dataset/', token),
  ]);
  let applied!: () => void;
  reference = new Promise<void>((resolve) => (applied = resolve));
  // The view of the address is requested as soon as its place is known, while the rest of the
  // metadata loads: the place's datasets say whether the view's dataset has data there.
  let requested: string | undefined;
  const placed = (state.city === undefined ? Promise.resolve(undefined) : placeOf(state.city, token)).then((place) => {
    city = place;
    fitDatasetToPlace();
    if (state.city === undefined) return;
    if (!place) {
      // A shared address from another build: its climate requests could only answer 404.
      el.placeCurrent.textContent = `There is no city ${state.city} in this build: search for a city or click the map.`;
      state.city = undefined;
      return;
    }
    showPlace();
    requested = indicatorPath(state, 'historical');
    void draw();
  });
  try {
    const [[list, datasetList]] = await Promise.all([metadata, placed]);
    indicators = list;
    datasets = datasetList;
    el.indicator.replaceChildren(...indicators.map((i) => option(i.name, i.label)));
    el.dataset.replaceChildren(...datasets.map((d) => option(d.name, d.name)));
    renderIndicatorControls();
    renderViewControls();
    writeUrl();
    // Redrawn only if the metadata changed the view (an unknown indicator, parameters it lacks).
    if (requested !== (state.city === undefined ? undefined : indicatorPath(state, 'historical'))) void draw();
    if (state.city === undefined) {
      if (state.view === 'map') void draw();
      else showMap();
    }
  } catch (err) {
    report(err);
  } finally {
    applied();
  }
}

el.signInForm.addEventListener('submit', (ev) => {
  ev.preventDefault();
  performance.mark('explorer-sign-in');
  el.signInMessage.textContent = 'Signing in…';
  signIn(el.email.value, el.password.value).then(
    (token) => {
      session.set(token);
      el.signInMessage.textContent = '';
      void start();
    },
    (err: unknown) => {
      el.signInMessage.textContent = (err as Error).message;
    },
  );
});
el.signOut.addEventListener('click', () => {
  session.clear();
  showSignIn('Signed out.');
});
el.indicator.addEventListener('change', () => {
  state.indicator = el.indicator.value;
  renderIndicatorControls();
  update();
});
el.dataset.addEventListener('change', () => {
  state.dataset = el.dataset.value;
  // The historic_range choices and the scenarios follow the dataset.
  renderIndicatorControls();
  fitDatasetToPlace();
  update();
});
el.view.addEventListener('change', () => {
  state.view = el.view.value === 'warming_level' || el.view.value === 'map' ? el.view.value : 'time';
  update();
});
el.mapScenario.addEventListener('change', () => {
  state.map_scenario = el.mapScenario.value;
  update();
});
el.mapLevel.addEventListener('change', () => {
  state.map_level = el.mapLevel.value;
  update();
});
el.mapYears.addEventListener('change', () => {
  state.map_years = el.mapYears.value.trim();
  update();
});
el.mapStat.addEventListener('change', () => {
  state.map_stat = el.mapStat.value;
  update();
});
el.mapArea.addEventListener('change', () => {
  state.map_area = el.mapArea.value;
  update();
});
el.timeAggregation.addEventListener('change', () => {
  state.time_aggregation = el.timeAggregation.value;
  update();
});
// Enter in a field of the form applies it here instead of submitting the form (and leaving the page).
$<HTMLFormElement>('view-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  if (el.windows.value.trim() !== state.windows) el.windows.dispatchEvent(new Event('change'));
});
el.windows.addEventListener('change', () => {
  state.windows = el.windows.value.trim();
  update();
});
el.units.addEventListener('change', () => {
  state.units = el.units.value === currentIndicator()?.default_units ? '' : el.units.value;
  update();
});
el.relative.addEventListener('change', () => {
  state.relative_to = el.relative.checked ? el.baseline.value : '';
  update();
});
el.baseline.addEventListener('change', () => {
  state.relative_to = el.baseline.value;
  update();
});
el.csvButtons.addEventListener('click', async (ev) => {
  const button = (ev.target as HTMLElement).closest<HTMLButtonElement>('button[data-csv]');
  if (!button) return;
  const token = session.token();
  if (!token) return showSignIn();
  const scenario = button.dataset.csv!;
  try {
    const res = await apiGet(indicatorPath(state, scenario, 'csv', scenarioWindows[scenario], scenarioLevels[scenario]), token);
    saveBlob(await res.blob(), dispositionFilename(res.headers.get('Content-Disposition')) ?? `${state.indicator}-${state.city}-${scenario}.csv`);
  } catch (err) {
    report(err);
  }
});
el.png.addEventListener('click', async () => {
  if (!shown) return;
  try {
    saveBlob(await chartPng(shown.title, shown.scenarios), `${state.indicator}-${state.city}.png`);
  } catch (err) {
    report(err);
  }
});
citySearch(el.search, el.results, () => session.token(), choose, (err) => report(err, el.placeCurrent));
addEventListener('resize', () => {
  if (state.view === 'time') resizeChart(el.chart);
});
void start();
