import { z } from 'zod';
import { mapQuery, MAP_MEDIA_TYPES } from '../maps/mapParams.js';
import type { Catalog } from '../reference/catalog.js';
import { json, pathParams, type Operation } from './operation.js';
import { indicator, modelsLeftOut } from './responseShapes.js';

const ints = z.array(z.int());
const numbers = z.array(z.number());
const span = z.strictObject({ start_year: z.int(), end_year: z.int() });

const colourScale = z
  .strictObject({
    kind: z.enum(['sequential', 'diverging']).meta({ description: 'sequential for values, diverging around zero for changes (relative_to).' }),
    palette: z.string().meta({ description: 'The IPCC WGI palette: temp_seq, temp_div, prec_seq, prec_div; _r when reversed (more means colder or drier).' }),
    breaks: numbers.meta({ description: 'Ascending class breaks in the answer units; fixed per indicator, units and values or change, never from the data.' }),
    colors: z.array(z.string()).meta({ description: 'One #rrggbb per class (breaks.length - 1); below the first break the first, above the last the last.' }),
  })
  .meta({ id: 'MapColourScale' });

const grid = z.strictObject({
  dataset: z.string(),
  resolution: z.number().meta({ description: 'Cell size in degrees.' }),
  origin: z.strictObject({ lat: z.number(), lon: z.number() }).meta({ description: "The grid's south-west corner: a cell's row is floor((lat - origin.lat) / resolution), its column likewise, and its id row * cols + col." }),
  rows: z.int(),
  cols: z.int(),
  crs: z.literal('EPSG:4326'),
});

const mapRequest = z.strictObject({
  dataset: z.string(),
  scenario: z.string(),
  indicator: z.string(),
  years: span.optional(),
  warming_level: z.string().optional(),
  agg: z.array(z.string()),
  units: z.string(),
  climate_models: z.array(z.string()),
  relative_to: z.strictObject({ start_year: z.int(), end_year: z.int(), change: z.enum(['absolute', 'percent']) }).optional(),
  area: z
    .union([z.strictObject({ region: z.int() }), z.strictObject({ city: z.int() }), z.strictObject({ bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]) })])
    .nullable()
    .meta({ description: 'The area asked for; null for every cell of the dataset.' }),
  indicator_parameters: z.record(z.string(), z.unknown()).meta({ description: "The indicator's own parameters as computed with: thresholds and base temperatures in K (kg m-2 s-1 for precipitation)." }),
});

const indicatorMap = z
  .strictObject({
    dataset: z.string(),
    scenario: z.string(),
    indicator,
    request: mapRequest.meta({ description: 'The request as understood, defaults filled in.' }),
    models_left_out: modelsLeftOut,
    units: z.string(),
    grid,
    cells: z
      .strictObject({ id: ints, lat: numbers, lon: numbers, row: ints, col: ints })
      .meta({ description: "The map's cells with data, in id order (row-major on the grid): their ids, centres and grid rows and columns, as columns." }),
    values: z.record(z.string(), z.array(z.number().nullable())).meta({ description: 'Per statistic across models (agg), a value per cell in the cells’ order; null where the cell has none.' }),
    models: ints.meta({ description: "Per cell, how many models' values the statistics are taken over." }),
    color_scale: colourScale,
  })
  .meta({ id: 'IndicatorMap' });

export function mapOperations(catalog: Catalog): Operation[] {
  const p = pathParams(catalog);
  return [
    {
      method: 'get',
      path: '/api/climate-data/map/{scenario}/indicator/{indicator_name}/',
      operationId: 'indicatorMap',
      tag: 'Indicators',
      summary: 'One indicator for every map cell of an area (or of the dataset), over a span of years or at a warming level',
      description:
        "The dataset's own grid cells with data in the area (region, city or bbox; none: every cell of the dataset), whole. " +
        "Per cell and model, the mean over `years` of the indicator's yearly value (or over the model's own window at `warming_level`), as a change against relative_to if asked; " +
        'then the agg statistics across models. Each value equals what the indicator endpoint answers for that cell alone with time_aggregation=window&windows=<years> (or the same warming_level). ' +
        'The answer has a fixed colour scale for the legend. 400 past MAP_MAX_DAY_CELLS cells when the values must be computed from the days (non-default parameters). Rate-limited per account.',
      auth: 'token',
      throttled: true,
      pathParams: { scenario: p.scenario, indicator_name: p.indicator },
      query: mapQuery(catalog),
      ok: {
        description: 'The map.',
        content: {
          ...json(indicatorMap),
          [MAP_MEDIA_TYPES.geojson]: { schema: z.string().meta({ description: 'A FeatureCollection, a Polygon per cell with its values as properties.' }) },
          [MAP_MEDIA_TYPES.csv]: { schema: z.string() },
          [MAP_MEDIA_TYPES.geotiff]: { schema: z.string().meta({ format: 'binary', description: 'A band per statistic, float32, EPSG:4326, NaN nodata outside the cells.' }) },
        },
      },
      notFound: 'Unknown scenario, indicator, region or city (or a city without a boundary), or no cell of the area has data of the dataset.',
    },
  ];
}
