import { z } from 'zod';
import { parseBatchBody } from '../batch/batchBody.js';
import { badRequest } from '../errors.js';

/**
 * The body of POST /api/export/: what an analyst asks for once instead of thousands of calls. This
 * module checks its shape only (types, one of variables or indicators, one of area or locations);
 * whether the names exist in the data build is the plan's job (exportPlan.ts). The same schema is
 * the OpenAPI description of the body (src/api/exportOperations.ts).
 */

export const EXPORT_FORMATS = ['netcdf', 'parquet', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const place = z.union([
  z.strictObject({ city: z.int().min(1).meta({ description: 'City id (GeoNames), e.g. 5128581.' }) }),
  z.strictObject({ lat: z.number().min(-90).max(90), lon: z.number().min(-180).max(180) }),
]);

const area = z.union([
  z.strictObject({ bbox: z.string().meta({ description: 'minlon,minlat,maxlon,maxlat in degrees.', examples: ['-74.25,40.5,-73.75,40.75'] }) }),
  z.strictObject({ city: z.int().min(1).meta({ description: "The city's boundary (a city id)." }) }),
  z.strictObject({ region: z.int().min(1).meta({ description: 'An ecoregion id of /api/region/.' }) }),
  z.strictObject({ geometry: z.record(z.string(), z.unknown()).meta({ description: 'A GeoJSON Polygon, MultiPolygon or a Feature of one.' }) }),
]);

/** An indicator and its own parameters, as the indicator endpoints take them in the query string. */
const indicator = z
  .object({ name: z.string().min(1).meta({ description: 'An indicator of /api/indicator/.' }) })
  .catchall(z.union([z.string(), z.number(), z.boolean()]))
  .meta({ description: 'name, then the indicator endpoint\'s parameters (time_aggregation, units, threshold, ...) as JSON values; not dataset, models, years or agg (the export has them, and gives every model\'s value).' });

export const exportBody = z
  .strictObject({
    dataset: z.string().optional().meta({ description: 'A dataset of /api/dataset/; default NEX-GDDP, as the climate endpoints.' }),
    scenarios: z.array(z.string()).min(1).meta({ description: 'One file per scenario; a scenario without any of the years asked for gets no file (the export says so in `skipped`).' }),
    models: z.array(z.string()).min(1).optional().meta({ description: "Default: every model of the dataset that has the scenario." }),
    years: z
      .union([z.string(), z.record(z.string(), z.string())])
      .optional()
      .meta({
        description:
          "Year ranges as the climate endpoints take them (`2040:2069`, `2010:2020,2030`), applied to each scenario within its own years; or per scenario, `{\"historical\": \"1985:2014\", \"ssp245\": \"2040:2069\"}` (a scenario not named there: all its years). Default all.",
      }),
    variables: z.array(z.string()).min(1).optional().meta({ description: 'Raw daily variables (as /api/climate-data/ names them). Give variables or indicators.' }),
    indicators: z.array(indicator).min(1).optional().meta({ description: 'Indicators, each with its parameters. Give variables or indicators.' }),
    area: area.optional().meta({ description: 'Every map cell of the area with data. Give area or locations.' }),
    locations: z.array(place).min(1).optional().meta({ description: 'Places, each a city or a point (its map cell). Give area or locations.' }),
    format: z.enum(EXPORT_FORMATS).meta({ description: 'netcdf (NetCDF-4, CF-1.8), parquet (long form, zstd) or csv (the same columns).' }),
  })
  .meta({
    id: 'ExportRequest',
    example: { dataset: 'NEX-GDDP-CMIP6', scenarios: ['ssp245'], models: ['ACCESS-CM2', 'CanESM5'], years: '2050:2052', variables: ['tasmax'], area: { bbox: '-74.1,40.6,-73.8,40.8' }, format: 'parquet' },
  });

export type ExportBody = z.infer<typeof exportBody>;

/** The JSON path of a zod issue as a reader writes it: indicators[0].threshold. */
function pathText(path: PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${String(p)}`)).join('') || 'the body';
}

/** The body's shape checked; the first fault is a 400 naming the field. */
export function parseExportBody(body: unknown): ExportBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('The request body must be a JSON object (Content-Type: application/json): {"scenarios": [...], "variables" or "indicators": [...], "area" or "locations": ..., "format": "netcdf" | "parquet" | "csv"}.');
  }
  // The batch endpoints' checks of places, with their sentences (`locations[3].lat must be ...`).
  const { locations } = body as { locations?: unknown };
  if (locations !== undefined) parseBatchBody({ locations }, Number.MAX_SAFE_INTEGER);
  const parsed = exportBody.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = pathText(issue.path);
    if (issue.code === 'unrecognized_keys') throw badRequest(`${where} has unknown field(s) ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}.`);
    if (issue.code === 'invalid_union' && issue.path[0] === 'area') {
      throw badRequest(`${where} must be exactly one of {"bbox": "minlon,minlat,maxlon,maxlat"}, {"city": <id>}, {"region": <id>} or {"geometry": <GeoJSON Polygon or MultiPolygon>}.`);
    }
    if (issue.code === 'invalid_union' && issue.path[0] === 'locations') {
      throw badRequest(`${where} must be {"city": <id>} or {"lat": <degrees -90..90>, "lon": <degrees -180..180>}.`);
    }
    if (issue.path[0] === 'format') throw badRequest(`format must be one of ${EXPORT_FORMATS.join(', ')}.`);
    throw badRequest(`${where}: ${issue.message}.`);
  }
  const b = parsed.data;
  if ((b.variables === undefined) === (b.indicators === undefined)) throw badRequest('Give exactly one of variables (raw daily values) or indicators.');
  if ((b.area === undefined) === (b.locations === undefined)) throw badRequest('Give exactly one of area or locations.');
  return b;
}
