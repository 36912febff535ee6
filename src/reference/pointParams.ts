import { z } from 'zod';
import { number, queryFields, queryParser, wireType } from '../http/queryParams.js';

const COORD = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** A lat or lon path segment: a plain decimal (no exponent, no blanks) within the bounds. */
function coordinate(min: number, max: number, description: string) {
  const error = `must be a number between ${min} and ${max}`;
  return z
    .string()
    .regex(COORD, { error })
    .transform(Number)
    .refine((n) => n >= min && n <= max, { error })
    .meta({ description, override: wireType('number', min, max) });
}

/** lat/lon path segments of the point endpoints, within the spec's bounds. */
export const pointPath = {
  lat: coordinate(-90, 90, 'Latitude in degrees.'),
  lon: coordinate(-180, 180, 'Longitude in degrees.'),
};
const point = queryParser(pointPath);

export function parsePoint(latText: string | undefined, lonText: string | undefined): { lat: number; lon: number } {
  return point({ lat: latText, lon: lonText });
}

/** `distance` in metres; 0 (the default) means only the cell containing the point. */
export const distanceQuery = {
  distance: number({ min: 0 })
    .default(0)
    .meta({ description: 'Maximum distance in metres from the point to a map cell with data; 0 means only the cell containing the point.' }),
};
const distance = queryFields(distanceQuery).distance;

export function parseDistance(query: unknown): number {
  return distance(query);
}
