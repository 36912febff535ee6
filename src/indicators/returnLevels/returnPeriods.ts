import { z } from 'zod';
import { badRequest } from '../../errors.js';
import { parsedBy } from '../../http/queryParams.js';
import { INDICATORS } from '../metadata.js';

/** Return levels: the parameters that ask for them (return_period, baseline_return_period, include) and their bounds. */

export type Extreme = 'maximum' | 'minimum';

/** The indicators of a yearly extreme, which have return levels, and which extreme each is. */
export const RETURN_LEVEL_EXTREMES: ReadonlyMap<string, Extreme> = new Map([
  ['max_high_temperature', 'maximum'],
  ['min_low_temperature', 'minimum'],
  ['max_1day_precipitation', 'maximum'],
  ['max_nday_precipitation', 'maximum'],
  ['max_wet_bulb_temperature', 'maximum'],
  ['max_heat_index', 'maximum'],
]);

export const SHORTEST_RETURN_PERIOD = 2;
export const LONGEST_RETURN_PERIOD = 200;
/** A GEV fit of fewer yearly extremes than this is too uncertain to answer. */
export const MIN_FIT_YEARS = 20;
/** The default fitting window: the scenario's last 30 years. */
export const DEFAULT_FIT_YEARS = 30;
/** The inverse answers return periods beyond this as this, and names the models it capped. */
export const RETURN_PERIOD_CAP = 1000;
export const INCLUDES = ['fit'] as const;

export const FIT_METHOD =
  "GEV distribution fitted to each model's yearly extremes by L-moments (Hosking 1990): shape k from the sample L-skewness t3 = 2(1 - 3^-k)/(1 - 2^-k) - 3, solved to full precision by Newton's method from Hosking, Wallis and Wood's (1985) approximation; scale and location from l2 and l1. Minima are fitted as maxima of the negated values. The N-year return level is the quantile at 1 - 1/N.";

/** `return_period`, `baseline_return_period`: comma-separated integers from 2 to 200, ascending, duplicates collapsed. */
export function parseReturnPeriods(name: string) {
  return (value: string): number[] => {
    const out = new Set<number>();
    for (const text of value.split(',')) {
      const n = /^\s*\d{1,3}\s*$/.test(text) ? Number(text) : NaN;
      if (!(n >= SHORTEST_RETURN_PERIOD && n <= LONGEST_RETURN_PERIOD)) {
        throw badRequest(`${name} accepts comma-separated return periods in years, integers from ${SHORTEST_RETURN_PERIOD} to ${LONGEST_RETURN_PERIOD} (e.g. 20,100); got '${text.trim()}'.`);
      }
      out.add(n);
    }
    return [...out].sort((a, b) => a - b);
  };
}

/** The indicators with return levels, as the 400s list them. */
export const RETURN_LEVEL_INDICATORS = [...RETURN_LEVEL_EXTREMES.keys()].join(', ');
const docOf = (name: string) => INDICATORS.find((m) => m.name === 'max_high_temperature')!.parameters.find((p) => p.name === name)!.description;

/** The query parameters of return levels (with the indicators' other parameters in indicatorQuery). */
export function returnLevelQuery() {
  const doc = (name: string) => `${docOf(name)} Used by: ${RETURN_LEVEL_INDICATORS}; the other indicators answer 400.`;
  return {
    return_period: z
      .string()
      .transform(parsedBy(parseReturnPeriods('return_period')))
      .optional()
      .meta({ description: doc('return_period'), examples: ['20', '20,50,100'] }),
    baseline_return_period: z
      .string()
      .transform(parsedBy(parseReturnPeriods('baseline_return_period')))
      .optional()
      .meta({ description: doc('baseline_return_period'), examples: ['20'] }),
    include: z
      .enum(INCLUDES, { error: (iss) => `include must be ${INCLUDES.join(', ')}; got '${String(iss.input)}'.` })
      .optional()
      .meta({ description: doc('include') }),
  };
}
