import { z } from 'zod';
import { HttpError } from './errors.js';

/**
 * Query-string parsing with zod. Each schema's messages complete the sentence "<param> ...", so a
 * failure becomes a 400 whose detail names the parameter, what is allowed and what was sent.
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
    .refine((n) => n >= min && n <= max, { error: `must be an integer${range}` });
}

export function number(opts: { min?: number; max?: number } = {}) {
  const { min = -Infinity, max = Infinity } = opts;
  const range = describeRange(min, max);
  return z
    .string()
    .trim()
    .regex(FLOAT, { error: `must be a number${range}` })
    .transform(Number)
    .refine((n) => Number.isFinite(n) && n >= min && n <= max, { error: `must be a number${range}` });
}

function describeRange(min: number, max: number): string {
  const lo = Number.isFinite(min) && min > Number.MIN_SAFE_INTEGER;
  const hi = Number.isFinite(max) && max < Number.MAX_SAFE_INTEGER;
  if (lo && hi) return ` between ${min} and ${max}`;
  if (lo) return ` >= ${min}`;
  if (hi) return ` <= ${max}`;
  return '';
}

/** A free-text parameter; the empty string counts as absent. */
export const text = () =>
  z
    .string()
    .transform((s) => s.trim())
    .transform((s) => (s === '' ? undefined : s));

/**
 * A parser of Express's parsed query for an object schema of string parameters. Build it once per
 * route: zod compiles a schema on first use, which costs more than the request itself.
 * Repeated parameters are rejected rather than silently using one of the values.
 */
export function queryParser<S extends z.ZodRawShape>(shape: S): (query: unknown) => z.output<z.ZodObject<S>> {
  const schema = z.object(shape);
  const keys = Object.keys(shape);
  return (query) => parseWith(schema, keys, query);
}

function parseWith<S extends z.ZodRawShape>(schema: z.ZodObject<S>, keys: string[], query: unknown): z.output<z.ZodObject<S>> {
  const source = (query ?? {}) as Record<string, unknown>;
  const picked: Record<string, unknown> = {};
  for (const key of keys) {
    const value = source[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new HttpError(400, `${key} must be given once, as a single value.`);
    picked[key] = value;
  }
  const result = schema.safeParse(picked);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const name = String(issue.path[0] ?? 'query');
  const sent = picked[name];
  const suffix = typeof sent === 'string' ? `, got '${sent}'` : '';
  throw new HttpError(400, `${name} ${issue.message}${suffix}.`);
}
