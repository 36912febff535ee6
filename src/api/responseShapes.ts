import { z } from 'zod';
import { VARIABLES } from '../climate/params.js';
import { VALID_AGGREGATIONS } from '../indicators/metadata.js';

/**
 * The response bodies as zod schemas, for the OpenAPI document. The routes write their JSON by
 * hand (text splicing is faster), so test/openapi.test.ts parses real responses of every operation
 * with these schemas: a field added, renamed or retyped in a route fails there.
 * `id`s make them named components of the document.
 */

const position = z.tuple([z.number(), z.number()]).meta({ description: '[longitude, latitude], longitude in [-180, 180).' });
const pointGeometry = z.strictObject({ type: z.literal('Point'), coordinates: position });
const proximity = z.record(z.string(), z.boolean()).meta({ description: 'Boolean flags: ocean, coastal.' });
const nextLink = z.string().nullable().meta({ description: 'Absolute URL of the next page, or null.' });
const previousLink = z.string().nullable().meta({ description: 'Absolute URL of the previous page, or null.' });

export const errorBody = z
  .strictObject({ detail: z.string().meta({ description: 'What went wrong; a 400 names the parameter and what it accepts.' }) })
  .meta({ id: 'Error' });

export const city = z
  .strictObject({
    id: z.int().meta({ description: 'GeoNames id; the {city} of other paths.' }),
    type: z.literal('Feature'),
    geometry: pointGeometry,
    properties: z.strictObject({
      proximity,
      name: z.string(),
      admin: z.string().meta({ description: 'Administrative area abbreviation (US state).' }),
      population: z.int(),
      datasets: z.array(z.string()).meta({ description: 'Datasets with data for the city.' }),
      region: z.int().nullable().meta({ description: 'Ecoregion id (see /api/region/), or null.' }),
    }),
  })
  .meta({ id: 'City' });

export const cityCollection = z
  .strictObject({ type: z.literal('FeatureCollection'), count: z.int(), next: nextLink, previous: previousLink, features: z.array(city) })
  .meta({ id: 'CityCollection' });

const multiPolygon = z.strictObject({
  type: z.literal('MultiPolygon'),
  coordinates: z.array(z.array(z.array(position))),
});
export const polygonal = z.strictObject({
  type: z.enum(['Polygon', 'MultiPolygon']),
  coordinates: z.array(z.array(z.unknown())).meta({ description: 'GeoJSON (Multi)Polygon coordinates.' }),
});

export const cityBoundary = z
  .strictObject({ type: z.literal('Feature'), geometry: multiPolygon, properties: z.strictObject({}) })
  .meta({ id: 'CityBoundary' });

export const cityMapCell = z
  .strictObject({ type: z.literal('Feature'), geometry: pointGeometry, properties: z.strictObject({ dataset: z.string() }) })
  .meta({ id: 'CityMapCell' });

export const pointMapCell = z
  .strictObject({
    type: z.literal('Feature'),
    geometry: pointGeometry,
    properties: z.strictObject({
      datasets: z.array(z.string()),
      distance_meters: z.number().meta({ description: 'Distance from the queried point to the cell centre, metres.' }),
      proximity,
    }),
  })
  .meta({ id: 'PointMapCell' });

const years = (what: string) => ({ start_year: z.int().meta({ description: `First year of ${what}.` }), end_year: z.int().meta({ description: `Last year of ${what}.` }) });

const datasetSource = z
  .strictObject({
    publisher: z.string().meta({ description: 'Who produced and publishes the dataset.' }),
    archives: z
      .array(z.strictObject({ url: z.string(), description: z.string() }))
      .meta({ description: "The public addresses the publisher's files are at, the first the one `make fetch` reads by default." }),
    citations: z
      .array(z.strictObject({ text: z.string(), doi: z.string().nullable().meta({ description: 'Null where none is given.' }) }))
      .meta({ description: 'The references the publisher asks users to cite (the dataset, its method).' }),
  })
  .meta({ id: 'DatasetSource' });

const datasetLicence = z
  .strictObject({
    name: z.string().nullable().meta({ description: "The licence's short name (CC0 1.0, US Government work); null where the publisher states none." }),
    url: z.string().nullable().meta({ description: "The licence's text; null where there is no named licence or no text to point to." }),
    statement: z.string().meta({ description: 'What the publisher says of the terms, or that no statement was found.' }),
    stated_at: z.string().meta({ description: 'The page the statement is published on.' }),
  })
  .meta({ id: 'DatasetLicence' });

export const dataset = z
  .strictObject({
    name: z.string(),
    label: z.string(),
    description: z.string(),
    url: z.string(),
    models: z.array(z.string()),
    grid: z.string().meta({ description: "The dataset's grid." }),
    generation: z.enum(['CMIP5', 'CMIP6']).meta({ description: 'The CMIP phase of its models.' }),
    scenarios: z
      .array(z.strictObject({ name: z.string(), ...years('the scenario in this dataset') }))
      .meta({ description: 'The scenarios of the dataset with their years (historical ends in 2005 for CMIP5, 2014 for CMIP6).' }),
    historic_ranges: z
      .array(z.strictObject(years('the range')))
      .meta({ description: "The dataset's historic ranges, as /api/historic-range/?dataset= lists them (1981-2010 for CMIP6 only)." }),
    variables: z
      .array(z.enum(VARIABLES))
      .meta({ description: "The dataset's daily variables: tasmax, tasmin, pr everywhere; tas, hurs, huss in NEX-GDDP-CMIP6." }),
    models_lacking: z
      .record(z.string(), z.array(z.string()))
      .meta({ description: 'Per variable, the models of the dataset published without it (left out of the answers that need it).' }),
    source: datasetSource.nullable().meta({ description: 'The publisher, its archives and what to cite; null only for a dataset this service has no record of.' }),
    licence: datasetLicence.nullable().meta({ description: 'The licence as the publisher states it; null only for a dataset this service has no record of.' }),
  })
  .meta({ id: 'ClimateDataset' });

export const modelRun = z
  .strictObject({
    dataset: z.string(),
    member: z.string().nullable().meta({ description: 'The ensemble member (variant label) served; null where the dataset does not record one (CMIP5).' }),
    grid_label: z.string().nullable().meta({ description: "The grid label in the publisher's file names; null for CMIP5." }),
    calendar: z.enum(['standard', 'noleap', '360_day']).meta({ description: 'The calendar of its days: noleap has no Feb 29; 360_day has no value on 5 or 6 dates a year.' }),
    scenarios: z.array(z.string()).meta({ description: 'The scenarios this model has in the dataset.' }),
  })
  .meta({ id: 'ClimateModelRun' });

export const climateModel = z
  .strictObject({ name: z.string(), label: z.string(), datasets: z.array(z.string()), base_time: z.null(), runs: z.array(modelRun).meta({ description: 'Per dataset, the run served.' }) })
  .meta({ id: 'ClimateModel' });

export const scenario = z
  .strictObject({
    name: z.string(),
    label: z.string(),
    description: z.string(),
    alias: z.string(),
    datasets: z.array(z.string()).meta({ description: 'The datasets with this scenario (their years: /api/dataset/).' }),
  })
  .meta({ id: 'Scenario' });

export const historicRange = z
  .strictObject({ ...years('the range'), datasets: z.array(z.string()).meta({ description: 'The datasets whose historical years hold the range.' }) })
  .meta({ id: 'HistoricDateRange' });

export const warmingLevelListing = z
  .strictObject({
    levels: z.array(z.string()).meta({ description: 'The levels of warming_level, in °C above the reference period.' }),
    window_years: z.int().meta({ description: "Years of each model's window." }),
    reference_period: z.strictObject({ ...years('the reference period') }).meta({ description: 'Warming is measured against this pre-industrial period (but for the models of other_reference_period).' }),
    source: z
      .strictObject({ citation: z.string(), doi: z.string(), url: z.string(), licence: z.string(), method: z.string() })
      .meta({ description: 'Where the windows come from: the IPCC AR6 Atlas tables, with their licence.' }),
    datasets: z.array(
      z.strictObject({
        name: z.string(),
        other_reference_period: z
          .array(z.strictObject({ model: z.string(), ...years('its reference period') }))
          .meta({ description: 'Models measured against a later reference period: their historical runs start after 1850 (CMIP5).' }),
        scenarios: z.array(
          z.strictObject({
            name: z.string(),
            models: z.int().meta({ description: 'Models of the dataset with a run of the scenario.' }),
            reaching: z.record(z.string(), z.int()).meta({ description: 'Per level, how many of them reach it by 2100.' }),
            reaching_in_data: z
              .record(z.string(), z.int())
              .meta({ description: "Per level, how many of them reach it with a window whose years are all in this data build (warming_level answers at a level only with such models; in a complete build, as many as reaching)." }),
            not_in_table: z.array(z.string()).meta({ description: 'Models the tables do not have for this scenario: at no level.' }),
          }),
        ),
      }),
    ),
  })
  .meta({ id: 'WarmingLevels' });

export const indicatorParam = z
  .strictObject({
    name: z.string(),
    description: z.string(),
    required: z.boolean(),
    default: z.union([z.string(), z.number()]).optional(),
  })
  .meta({ id: 'IndicatorParam' });

export const indicator = z
  .strictObject({
    name: z.string(),
    label: z.string(),
    description: z.string(),
    valid_aggregations: z.array(z.enum(VALID_AGGREGATIONS)),
    variables: z.array(z.enum(VARIABLES)),
    formula: z.string().optional().meta({ description: 'A derived quantity: its formula, from the variables, with its limits.' }),
    source: z.string().optional().meta({ description: "The formula's published source." }),
    available_units: z.array(z.string()),
    default_units: z.string(),
    parameters: z.array(indicatorParam),
  })
  .meta({ id: 'Indicator' });

const regionFields = {
  level1: z.int(),
  level1_description: z.string(),
  level2: z.int(),
  level2_description: z.string(),
};

export const regionListItem = z.strictObject({ id: z.int(), ...regionFields }).meta({ id: 'RegionListItem' });

export const regionCollection = z
  .strictObject({ count: z.int(), next: nextLink, previous: previousLink, results: z.array(regionListItem) })
  .meta({ id: 'RegionCollection' });

export const region = z
  .strictObject({ id: z.int(), type: z.literal('Feature'), geometry: polygonal, properties: z.strictObject(regionFields) })
  .meta({ id: 'Region' });

export const token = z.strictObject({ token: z.string() }).meta({ id: 'Token' });

export const modelsLeftOut = z
  .array(z.strictObject({ model: z.string(), lacks: z.array(z.enum(VARIABLES)) }))
  .optional()
  .meta({ description: 'Models asked for (or of the dataset, for all) that lack one of the variables needed, each with what it lacks: left out of the values.' });

const dailyValues = z
  .array(z.number().nullable())
  .length(366)
  .meta({ description: 'Index i is day-of-year i+1; null for a day without data and at index 365 of non-leap years.' });

export const rawDataFields = {
  dataset: z.string(),
  scenario: z.string(),
  climate_models: z.array(z.string()),
  variables: z.array(z.enum(VARIABLES)),
  models_left_out: modelsLeftOut,
  data: z
    .record(z.string(), z.partialRecord(z.enum(VARIABLES), dailyValues))
    .meta({ description: 'Keyed by year; each year by variable: tasmax, tasmin and tas in K, pr in kg m-2 s-1, hurs in %, huss in kg kg-1.' }),
};

export const cityRawData = z.strictObject({ city, ...rawDataFields }).meta({ id: 'CityClimateData' });
export const pointRawData = z.strictObject({ feature: pointMapCell, ...rawDataFields }).meta({ id: 'PointClimateData' });

const statsOfPeriod = z.record(z.string(), z.number().nullable()).meta({ description: 'Statistic across models -> value (null for none); model_count at warming levels.' });
const gevFit = z.strictObject({ location: z.number(), scale: z.number(), shape: z.number() });
const fitWindow = z.union([
  z.strictObject({ scenario: z.string(), historic_range: z.int().optional(), start_year: z.int(), end_year: z.int(), years: z.int() }),
  z
    .strictObject({ warming_levels: z.array(z.string()), scenarios: z.array(z.string()), years: z.int() })
    .meta({ description: "At warming levels: each model's own 20-year window at each level, listed in warming_levels." }),
]);
const member = z.strictObject({ model: z.string(), scenario: z.string() });
const memberFit = z.strictObject({ model: z.string(), scenario: z.string(), location: z.number(), scale: z.number(), shape: z.number() });
const fits = z.strictObject({ window: z.record(z.string(), gevFit), baseline: z.record(z.string(), gevFit).optional() });
const levelFits = z.strictObject({ window: z.array(memberFit), baseline: z.array(memberFit).optional() });

/** A place's members after `data` in a return-level answer (return_period, baseline_return_period). */
export const returnLevelPlaceFields = {
  models_without_fit: z
    .union([z.array(z.string()), z.record(z.string(), z.array(member))])
    .optional()
    .meta({ description: 'Return levels: the models left out, with fewer than 20 yearly values in the fitting window (or the baseline), or values without spread. At warming levels keyed by level, each model with its scenario.' }),
  models_capped: z
    .union([z.record(z.string(), z.array(z.string())), z.record(z.string(), z.record(z.string(), z.array(member)))])
    .optional()
    .meta({ description: 'baseline_return_period: per return period, the models whose answer was beyond return_period_cap years and is the cap. At warming levels keyed by level, then return period.' }),
  fit: z
    .union([fits, z.record(z.string(), levelFits)])
    .optional()
    .meta({
      description:
        "include=fit: each model's GEV location, scale (in fit_units) and shape k (Hosking's sign: k > 0 bounded above), over the fitting window and the baseline. At warming levels keyed by level, each a list of models with their scenario and fit.",
    }),
};

export const indicatorDataFields = {
  dataset: z.string(),
  scenario: z.string(),
  indicator,
  climate_models: z.array(z.string()),
  time_aggregation: z.enum(VALID_AGGREGATIONS),
  units: z.string(),
  models_left_out: modelsLeftOut,
  relative_to: z
    .strictObject({ start_year: z.int(), end_year: z.int(), change: z.enum(['absolute', 'percent']).optional() })
    .optional()
    .meta({ description: 'With relative_to: the baseline years and the kind of change the values are (no change with baseline_return_period: the values are return periods).' }),
  warming_levels: z
    .strictObject({
      pool_scenarios: z.boolean(),
      scenarios: z.array(z.string()).meta({ description: "The scenarios whose models' windows are used: the requested one, or every future one of the dataset when pooled." }),
      source: z.string().meta({ description: 'Where the windows come from (the IPCC AR6 Atlas tables), with the licence.' }),
      levels: z
        .record(
          z.string(),
          z.strictObject({
            models: z
              .array(z.strictObject({ model: z.string(), scenario: z.string(), ...years("the model's window"), table_member: z.string(), reference_period: z.string() }))
              .meta({ description: "The models used at the level, each with its window, the table's member and the reference period of its warming." }),
            not_reached: z.array(z.strictObject({ model: z.string(), scenario: z.string() })).meta({ description: 'Models that do not reach the level by 2100 in the scenario.' }),
            not_in_table: z.array(z.strictObject({ model: z.string(), scenario: z.string() })).meta({ description: 'Models the tables do not have for the scenario.' }),
            outside_data: z
              .array(z.strictObject({ model: z.string(), scenario: z.string(), ...years("the model's window") }))
              .meta({ description: "Models whose window's years are not all in this data build." }),
          }),
        )
        .meta({ description: 'Per level, which models were used and which were not, and why.' }),
    })
    .optional()
    .meta({ description: 'With warming_level: the windows of each level. `data` is then keyed by level.' }),
  return_levels: z
    .strictObject({
      method: z.string(),
      extreme: z.enum(['yearly maximum', 'yearly minimum']),
      fitting_window: fitWindow,
      baseline_window: z.strictObject({ scenario: z.string(), start_year: z.int(), end_year: z.int() }).optional(),
      return_periods: z.array(z.int()).optional(),
      baseline_return_periods: z.array(z.int()).optional(),
      return_period_cap: z.int().optional(),
      fit_units: z.string().optional(),
    })
    .optional()
    .meta({ description: 'With return_period or baseline_return_period: the method, the fitting window and the return periods; `data` is then keyed by return period.' }),
  data: z
    .record(z.string(), z.union([statsOfPeriod, z.record(z.string(), statsOfPeriod)]))
    .meta({
      description:
        'Keyed by period (e.g. 2050, 2050-01, 2050-Q1, 2050-2059); each period by statistic across models (min, max, avg, 95th, ...). ' +
        'With return_period or baseline_return_period, keyed by return period (20), each by statistic across models; with warming_level too, keyed by level then return period (2.0 -> 20), each with its model_count. ' +
        'With warming_level, keyed by level (2.0): for yearly and offset_yearly the statistics and model_count (how many models they are taken over); ' +
        'for monthly, quarterly and custom, keyed by month (01), quarter (Q1) or span (01) of the year, each with its statistics and model_count.',
    }),
  ...returnLevelPlaceFields,
};

export const cityIndicatorData = z.strictObject({ city, ...indicatorDataFields }).meta({ id: 'CityIndicatorData' });
export const pointIndicatorData = z.strictObject({ feature: pointMapCell, ...indicatorDataFields }).meta({ id: 'PointIndicatorData' });
