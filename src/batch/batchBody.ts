import { badRequest } from '../errors.js';

/** One place of a batch, as the request gave it (echoed in its result) and as read from it. */
export type BatchPlace = { given: Record<string, unknown> } & ({ kind: 'city'; city: number } | { kind: 'point'; lat: number; lon: number });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? `the string ${JSON.stringify(v)}` : `${typeof v} ${JSON.stringify(v)}`);

/**
 * The body of a batch request: `{"locations": [{"city": <id>} | {"lat": <deg>, "lon": <deg>}, ...]}`
 * with 1 to `max` entries. Any fault fails the whole request with a 400 that names the field, so a
 * typo cannot pass for a place without data. Numbers must be JSON numbers: "40.7" as a string is
 * refused rather than guessed at.
 */
export function parseBatchBody(body: unknown, max: number): BatchPlace[] {
  if (!isObject(body)) throw badRequest('The request body must be a JSON object {"locations": [...]} sent with Content-Type: application/json.');
  const extra = Object.keys(body).filter((k) => k !== 'locations');
  if (extra.length > 0) throw badRequest(`The request body takes only the field locations; got ${extra.map((k) => JSON.stringify(k)).join(', ')}.`);
  const list = body.locations;
  if (list === undefined) throw badRequest('locations is required: a list of 1 to ' + max + ' locations, each {"city": <id>} or {"lat": <degrees>, "lon": <degrees>}.');
  if (!Array.isArray(list)) throw badRequest(`locations must be a list of locations; got ${describe(list)}.`);
  if (list.length === 0) throw badRequest(`locations must hold 1 to ${max} locations; it is empty.`);
  if (list.length > max) throw badRequest(`locations must hold 1 to ${max} locations; it has ${list.length}. Split the batch.`);
  return list.map((item, i) => parsePlace(item, `locations[${i}]`));
}

function parsePlace(item: unknown, at: string): BatchPlace {
  const shape = 'each location is {"city": <id>} or {"lat": <degrees>, "lon": <degrees>}';
  if (!isObject(item)) throw badRequest(`${at} must be an object: ${shape}; got ${describe(item)}.`);
  const keys = Object.keys(item);
  const unknown = keys.filter((k) => k !== 'city' && k !== 'lat' && k !== 'lon');
  if (unknown.length > 0) throw badRequest(`${at} has unknown field(s) ${unknown.map((k) => JSON.stringify(k)).join(', ')}: ${shape}.`);
  if ('city' in item) {
    if (keys.length > 1) throw badRequest(`${at} gives both a city and lat/lon: ${shape}, not both.`);
    const city = item.city;
    if (typeof city !== 'number' || !Number.isSafeInteger(city) || city < 1) throw badRequest(`${at}.city must be a positive integer city id (e.g. 5128581); got ${describe(city)}.`);
    return { given: item, kind: 'city', city };
  }
  if (!('lat' in item) || !('lon' in item)) throw badRequest(`${at} needs both lat and lon: ${shape}.`);
  const lat = coordinate(item.lat, `${at}.lat`, -90, 90);
  const lon = coordinate(item.lon, `${at}.lon`, -180, 180);
  return { given: item, kind: 'point', lat, lon };
}

function coordinate(v: unknown, at: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) throw badRequest(`${at} must be a number between ${min} and ${max}; got ${describe(v)}.`);
  return v;
}
