import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { MEDIA_TYPES } from '../http/format.js';
import { wireType } from '../http/queryParams.js';
import { INDICATORS } from '../indicators/metadata.js';
import type { Catalog } from '../reference/catalog.js';

/** What one operation of the OpenAPI document says; openapi.ts turns a list of them into the document. */

export type Shape = z.ZodRawShape;

export interface Operation {
  method: 'get' | 'post' | 'delete';
  /** OpenAPI path template, trailing slash included as the app serves it. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  /** `token`: needs `Authorization: Token <key>` (401 otherwise); `none`: public. */
  auth: 'token' | 'none';
  /** Per-account throttle: may answer 429 with Retry-After. */
  throttled?: boolean;
  pathParams?: Shape;
  query?: Shape;
  requestBody?: ZodOpenApiOperationObject['requestBody'];
  /** The 200 response. */
  ok: { description: string; content: Record<string, { schema: z.ZodType }> };
  /** When a 404 can happen, what it means. */
  notFound?: string;
  /** Other documented responses, by status. */
  extra?: ZodOpenApiResponsesObject;
}

export const json = (schema: z.ZodType) => ({ 'application/json': { schema } });

/** The 200 content of the climate data endpoints: JSON, or the same values as CSV or Arrow (`format`, or Accept). */
export const dataContent = (schema: z.ZodType) => ({
  ...json(schema),
  [MEDIA_TYPES.csv]: { schema: z.string() },
  [MEDIA_TYPES.arrow]: { schema: z.string().meta({ format: 'binary' }) },
});

/** Documentation-only schemas for path segments the routes look up (a miss is a 404, not a 400). */
export function pathParams(catalog: Catalog) {
  const names = <T extends { name: string }>(items: T[]) => items.map((i) => i.name) as [string, ...string[]];
  const id = (description: string) => z.string().meta({ description, override: wireType('integer', 1) });
  return {
    city: id('City id (GeoNames), e.g. 5128581 for New York City.'),
    region: id('Region id.'),
    dataset: z.enum(names(catalog.datasets)).meta({ description: 'Dataset name.' }),
    model: z.enum(names(catalog.models)).meta({ description: 'Climate model name.' }),
    scenario: z.enum(names(catalog.scenarios)).meta({ description: 'Scenario name.' }),
    indicator: z.enum(names(INDICATORS)).meta({ description: 'Indicator name (see /api/indicator/); the deprecated yearly_<name> aliases also work.' }),
  };
}
