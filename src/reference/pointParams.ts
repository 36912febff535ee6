import { badRequest } from '../http/errors.js';
import { number, queryParser } from '../http/queryParams.js';

const COORD = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** lat/lon path segments of the point endpoints: plain decimals within the spec's bounds. */
export function parsePoint(latText: string | undefined, lonText: string | undefined): { lat: number; lon: number } {
  const lat = COORD.test(latText ?? '') ? Number(latText) : NaN;
  const lon = COORD.test(lonText ?? '') ? Number(lonText) : NaN;
  if (!(lat >= -90 && lat <= 90)) throw badRequest(`lat must be a number between -90 and 90, got '${latText}'.`);
  if (!(lon >= -180 && lon <= 180)) throw badRequest(`lon must be a number between -180 and 180, got '${lonText}'.`);
  return { lat, lon };
}

const distanceParam = queryParser({ distance: number({ min: 0 }).optional() });

/** `distance` in metres; 0 (the default) means only the cell containing the point. */
export function parseDistance(query: unknown): number {
  return distanceParam(query).distance ?? 0;
}
