import { z } from 'zod';
import { BadRequestError } from '../errors.js';

/**
 * Query-string parsing with zod. A schema's message either completes the sentence "<param> ...",
 * and the 400 detail appends what was sent, or ends with a full stop and is the whole detail (for
 * messages that name one term of a list, or another parameter). The same schemas, with their
 * `.meta()` descriptions, generate the OpenAPI document (src/api/openapi.ts).
 */

const INT = /^[+-]?\d+$/;
const FLOAT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

export function integer(opts: { min?: number; max?: number } = {}) {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = opts;
  const range = describeRange(min, max);
  return z
    .string()
    .trim()
    .regex(INT, { error: `must be an integer${range}` })
    .transform(Number)
    .refine((n) => n >= min && n <= max, { error: `must be an integer${range}` })
    .meta({ override: wireType('integer', min, max) });
}

export function number(opts: { min?: number; max?: number } = {}) {
  const { min = -Infinity, max = Infinity } = opts;
  const range = describeRange(min, max);
  return z
    .string()
    .trim()
    .regex(FLOAT, { error: `must be a number${range}` })
    .transform(Number)
    .refine((n) => Number.isFinite(n) && n >= min && n <= max, { error: `must be a number${range}` })
    .meta({ override: wireType('number', min, max) });
}

/**
 * The OpenAPI schema of a numeric query value: the zod schema reads a string (its JSON Schema
 * would be a string pattern), but clients and Swagger UI should see the number type and bounds.
 */
export function wireType(type: 'integer' | 'number', min = -Infinity, max = Infinity) {
  return ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
    delete jsonSchema.pattern;
    jsonSchema.type = type;
    if (Number.isFinite(min) && min > Number.MIN_SAFE_INTEGER) jsonSchema.minimum = min;
    if (Number.isFinite(max) && max < Number.MAX_SAFE_INTEGER) jsonSchema.maximum = max;
  };
}

function describeRange(min: number, max: number): string {
  const lo = Number.isFinite(min) && min > Number.MIN_SAFE_INTEGER;
  const hi = Number.isFinite(max) && max < Number.MAX_SAFE_INTEGER;
  if (lo && hi) return ` between ${min} and ${max}`;
  if (lo) return ` >= ${min}`;
  if (hi) return ` <= ${max}`;
  return '';
}

/**
 * A zod transform from a parse function that throws a BadRequestError: the error's detail becomes
 * the issue's message, so the same sentence reaches the client.
 */
export function parsedBy<T>(parse: (value: string) => T) {
  return (value: string, ctx: z.core.$RefinementCtx<string>): T => {
    try {
      return parse(value);
    } catch (err) {
      if (!(err instanceof BadRequestError)) throw err;
      ctx.addIssue({ code: 'custom', message: err.message, input: value });
      return z.NEVER;
    }
  };
}

/** A free-text parameter; the empty string counts as absent. */
export const text = () =>
  z
    .string()
    .transform((s) => s.trim())
    .transform((s) => (s === '' ? undefined : s));

export interface QueryOptions {
  /** Trim every value and treat a blank one as absent (the climate endpoints' rule). */
  blankIsAbsent?: boolean;
}

/**
 * A parser of Express's parsed query for an object schema of string parameters. Build it once per
 * route: zod compiles a schema on first use, which costs more than the request itself.
 * Repeated parameters are rejected rather than silently using one of the values.
 */
export function queryParser<S extends z.ZodRawShape>(shape: S, opts: QueryOptions = {}): (query: unknown) => z.output<z.ZodObject<S>> {
  const schema = z.object(shape);
  const keys = Object.keys(shape);
  return (query) => parseWith(schema, keys, query, opts);
}

/**
 * One parser per parameter of the shape, for endpoints whose checks run in a fixed order with
 * other checks in between (a 404 for the place comes before a 400 for a later parameter).
 */
export function queryFields<S extends z.ZodRawShape>(
  shape: S,
  opts: QueryOptions = {},
): { [K in keyof S]: (query: unknown) => z.output<S[K]> } {
  const out: Record<string, (query: unknown) => unknown> = {};
  for (const key of Object.keys(shape)) {
    const schema = z.object({ [key]: shape[key]! });
    out[key] = (query) => (parseWith(schema, [key], query, opts) as Record<string, unknown>)[key];
  }
  return out as { [K in keyof S]: (query: unknown) => z.output<S[K]> };
}

function parseWith<S extends z.ZodRawShape>(schema: z.ZodObject<S>, keys: string[], query: unknown, opts: QueryOptions): z.output<z.ZodObject<S>> {
  const source = (query ?? {}) as Record<string, unknown>;
  const picked: Record<string, unknown> = {};
  for (const key of keys) {
    let value = source[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new BadRequestError(`${key} must be given once, as a single value.`);
    if (opts.blankIsAbsent) {
      value = value.trim();
      if (value === '') continue;
    }
    picked[key] = value;
  }
  const result = schema.safeParse(picked);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.message.endsWith('.')) throw new BadRequestError(issue.message);
  const name = String(issue.path[0] ?? 'query');
  const sent = picked[name];
  const suffix = typeof sent === 'string' ? `, got '${sent}'` : '';
  throw new BadRequestError(`${name} ${issue.message}${suffix}.`);
}
