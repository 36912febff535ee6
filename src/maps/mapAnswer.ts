import { csvField, csvLine } from '../http/csv.js';
import type { IndicatorPlan } from '../indicators/indicatorPlan.js';
import { leftOutField } from '../indicators/indicatorCsv.js';
import type { ColourScale } from './colourScale.js';
import type { MapCellList } from './mapCellList.js';
import type { MapPeriod } from './mapParams.js';
import type { MapValues } from './mapValues.js';
import type { GeoRaster } from './geotiff.js';

/** A map's answer in its text formats (JSON, GeoJSON, CSV); the GeoTIFF is geotiff.ts. Pure functions of the computed map. */
export interface MapContent {
  plan: IndicatorPlan;
  period: MapPeriod;
  cells: MapCellList;
  values: MapValues;
  scale: ColourScale;
  indicatorJson: unknown;
}

/** A number as the indicator endpoints print it; null where there is none. */
const num = (v: number | null) => (v === null ? 'null' : String(v));

/** The request as understood: every parameter after defaults, in the units the answer uses. */
export function mapRequestJson({ plan, period, cells }: MapContent): Record<string, unknown> {
  const { historicRange, ...vars } = plan.vars;
  return {
    dataset: plan.dataset.name,
    scenario: plan.scenario.name,
    indicator: plan.meta.name,
    ...('years' in period ? { years: { start_year: period.years.start, end_year: period.years.end } } : { warming_level: period.warmingLevel }),
    agg: plan.aggs,
    units: plan.units,
    climate_models: plan.models,
    ...(plan.relativeTo ? { relative_to: plan.relativeTo } : {}),
    area: Object.keys(cells.origin).length > 0 ? cells.origin : null,
    // The indicator's own parameters as the templates take them: thresholds and bases in K or kg m-2 s-1.
    indicator_parameters: { ...vars, ...(historicRange ? { historic_range: { start_year: historicRange.start_year, end_year: historicRange.end_year } } : {}) },
  };
}

function gridJson({ grid }: MapCellList) {
  return { dataset: grid.dataset, resolution: grid.size, origin: { lat: grid.lat0, lon: grid.lon0 }, rows: grid.rows, cols: grid.cols, crs: 'EPSG:4326' };
}

/** The JSON answer: the grid, the cells as columns, a list per statistic in the cells' order. */
export function mapJson(content: MapContent): string {
  const { plan, cells, values, scale, indicatorJson } = content;
  const stats = plan.aggs.map((name, k) => `${JSON.stringify(name)}:[${values.stats[k]!.map(num).join(',')}]`).join(',');
  return (
    `{"dataset":${JSON.stringify(plan.dataset.name)},"scenario":${JSON.stringify(plan.scenario.name)},"indicator":${JSON.stringify(indicatorJson)},` +
    `"request":${JSON.stringify(mapRequestJson(content))},` +
    (plan.leftOut.length > 0 ? `"models_left_out":${JSON.stringify(plan.leftOut)},` : '') +
    `"units":${JSON.stringify(plan.units)},"grid":${JSON.stringify(gridJson(cells))},` +
    `"cells":{"id":[${cells.ids.join(',')}],"lat":[${cells.lats.join(',')}],"lon":[${cells.lons.join(',')}],"row":[${cells.rows.join(',')}],"col":[${cells.cols.join(',')}]},` +
    `"values":{${stats}},"models":[${values.models.join(',')}],"color_scale":${JSON.stringify(scale)}}`
  );
}

/** Corners of a cell, counter-clockwise from the south-west, as GeoJSON wants an outer ring. */
function cellRing(lat: number, lon: number, size: number): number[][] {
  const h = size / 2;
  return [
    [lon - h, lat - h],
    [lon + h, lat - h],
    [lon + h, lat + h],
    [lon - h, lat + h],
    [lon - h, lat - h],
  ];
}

/** GeoJSON: a FeatureCollection with a polygon per cell, its values as properties; the legend and the request as foreign members. */
export function mapGeoJson(content: MapContent): string {
  const { plan, cells, values, scale } = content;
  const features = cells.ids.map((id, i) => {
    const stats = plan.aggs.map((name, k) => `${JSON.stringify(name)}:${num(values.stats[k]![i]!)}`).join(',');
    return (
      `{"type":"Feature","id":${id},"geometry":{"type":"Polygon","coordinates":${JSON.stringify([cellRing(cells.lats[i]!, cells.lons[i]!, cells.grid.size)])}},` +
      `"properties":{"id":${id},"lat":${cells.lats[i]},"lon":${cells.lons[i]},"row":${cells.rows[i]},"col":${cells.cols[i]},"models":${values.models[i]},${stats}}}`
    );
  });
  return (
    `{"type":"FeatureCollection","request":${JSON.stringify(mapRequestJson(content))},"units":${JSON.stringify(plan.units)},` +
    `"grid":${JSON.stringify(gridJson(cells))},"color_scale":${JSON.stringify(scale)},"features":[${features.join(',')}]}`
  );
}

/**
 * CSV: a row per cell (id, lat, lon, row, col, models, then a column per statistic), every row
 * saying what it is (dataset, scenario, indicator, units, period, and a change's baseline), as the
 * indicator CSV does, so that a table read without its header cannot pass changes off as values.
 */
export function mapCsv(content: MapContent): string {
  const { plan, period, cells, values } = content;
  const columns = ['dataset', 'scenario', 'indicator', 'units', 'period'];
  const fixed = [plan.dataset.name, plan.scenario.name, plan.meta.name, plan.units, 'years' in period ? `${period.years.start}-${period.years.end}` : `warming_level ${period.warmingLevel}`];
  if (plan.relativeTo) {
    columns.push('relative_to', 'change');
    fixed.push(`${plan.relativeTo.start_year}-${plan.relativeTo.end_year}`, plan.relativeTo.change);
  }
  if (plan.leftOut.length > 0) {
    columns.push('models_left_out');
    fixed.push(leftOutField(plan.leftOut));
  }
  const lead = csvLine(fixed).slice(0, -1);
  const parts = [[...columns, 'cell_id', 'lat', 'lon', 'row', 'col', 'models', ...plan.aggs.map(csvField)].join(',') + '\n'];
  cells.ids.forEach((id, i) => {
    const stats = plan.aggs.map((_, k) => {
      const v = values.stats[k]![i]!;
      return v === null ? '' : String(v);
    });
    parts.push(`${lead},${id},${cells.lats[i]},${cells.lons[i]},${cells.rows[i]},${cells.cols[i]},${values.models[i]},${stats.join(',')}\n`);
  });
  return parts.join('');
}

/**
 * The map as a raster: the smallest block of grid rows and columns holding its cells, a band per
 * statistic, north up; pixels outside the cells (and cells without a value) are NaN, the nodata.
 */
export function mapRaster({ plan, cells, values }: MapContent): GeoRaster {
  const { grid } = cells;
  // Not Math.min(...rows): a spread of 10^5 arguments can overflow the stack.
  const r0 = cells.rows.reduce((a, b) => Math.min(a, b));
  const r1 = cells.rows.reduce((a, b) => Math.max(a, b));
  const c0 = cells.cols.reduce((a, b) => Math.min(a, b));
  const c1 = cells.cols.reduce((a, b) => Math.max(a, b));
  const width = c1 - c0 + 1;
  const height = r1 - r0 + 1;
  const bands = plan.aggs.map((_, k) => {
    const band = new Float32Array(width * height).fill(NaN);
    const column = values.stats[k]!;
    cells.ids.forEach((_, i) => {
      const v = column[i];
      if (v !== null && v !== undefined) band[(r1 - cells.rows[i]!) * width + (cells.cols[i]! - c0)] = v;
    });
    return band;
  });
  return { width, height, west: grid.lon0 + c0 * grid.size, north: grid.lat0 + (r1 + 1) * grid.size, size: grid.size, bands, names: plan.aggs };
}
