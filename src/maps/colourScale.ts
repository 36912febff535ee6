import type { IndicatorMeta } from '../indicators/metadata.js';

/**
 * The legend of a map: class breaks and a colour per class, fixed per (indicator, units, absolute
 * or change) and never taken from the data, so that two maps of the same indicator can be compared
 * side by side and a map and its legend always agree. Colours follow the IPCC WGI (AR6) colour
 * guidance: temperature sequential yellow-red and diverging blue-red, precipitation sequential
 * and diverging brown-green. The hex values are ColorBrewer's YlOrRd, RdBu, YlGnBu and BrBG, the
 * schemes the IPCC palettes were derived from; a value below the first break takes the first
 * colour, above the last the last.
 */
export interface ColourScale {
  kind: 'sequential' | 'diverging';
  palette: string;
  /** Ascending; class i holds values in [breaks[i], breaks[i+1]). */
  breaks: number[];
  /** One per class: breaks.length - 1. */
  colors: string[];
}

const TEMP_SEQ = ['#ffffcc', '#ffeda0', '#fed976', '#feb24c', '#fd8d3c', '#fc4e2a', '#e31a1c', '#bd0026', '#800026', '#4d0019'];
// Blue (cooler) to red (warmer).
const TEMP_DIV = ['#053061', '#2166ac', '#4393c3', '#92c5de', '#d1e5f0', '#fddbc7', '#f4a582', '#d6604d', '#b2182b', '#67001f'];
const PREC_SEQ = ['#ffffd9', '#edf8b1', '#c7e9b4', '#7fcdbb', '#41b6c4', '#1d91c0', '#225ea8', '#253494', '#081d58', '#040e2c'];
// Brown (drier) to green (wetter).
const PREC_DIV = ['#543005', '#8c510a', '#bf812d', '#dfc27d', '#f6e8c3', '#c7eae5', '#80cdc1', '#35978f', '#01665e', '#003c30'];

/**
 * Per indicator, in its default units: the range of the sequential scale of absolute values, the
 * half-width of the diverging scale of absolute changes, and whether more of it means colder or
 * drier (then the palettes are reversed, so that warming and drying read the same on every map).
 * Ranges were chosen to span the conterminous US's values of the default build's models with room
 * for the end of the century; values beyond take the end colours.
 */
interface ScaleSpec {
  family: 'temperature' | 'precipitation';
  /** What a unit conversion does to it: an absolute temperature, a temperature difference or a degree-day sum, an amount, a rate, a count. */
  quantity: 'temperature' | 'difference' | 'amount' | 'rate' | 'count';
  range: [number, number];
  change: number;
  reversed?: boolean;
}

const T = (range: [number, number], change: number): ScaleSpec => ({ family: 'temperature', quantity: 'temperature', range, change });

const SPECS: Record<string, ScaleSpec> = {
  average_high_temperature: T([10, 110], 10),
  average_low_temperature: T([-10, 90], 10),
  max_high_temperature: T([50, 130], 10),
  min_low_temperature: T([-50, 70], 20),
  percentile_high_temperature: T([10, 110], 10),
  percentile_low_temperature: T([-10, 90], 10),
  max_wet_bulb_temperature: T([40, 90], 10),
  max_heat_index: T([60, 140], 20),
  diurnal_temperature_range: { family: 'temperature', quantity: 'difference', range: [0, 40], change: 5 },
  cooling_degree_days: { family: 'temperature', quantity: 'difference', range: [0, 5000], change: 2000 },
  heating_degree_days: { family: 'temperature', quantity: 'difference', range: [0, 10000], change: 2000, reversed: true },
  accumulated_freezing_degree_days: { family: 'temperature', quantity: 'difference', range: [0, 3000], change: 1000, reversed: true },
  frost_days: { family: 'temperature', quantity: 'count', range: [0, 250], change: 50, reversed: true },
  extreme_cold_events: { family: 'temperature', quantity: 'count', range: [0, 50], change: 20, reversed: true },
  extreme_heat_events: { family: 'temperature', quantity: 'count', range: [0, 100], change: 50 },
  heat_wave_duration_index: { family: 'temperature', quantity: 'count', range: [0, 100], change: 50 },
  heat_wave_incidents: { family: 'temperature', quantity: 'count', range: [0, 20], change: 10 },
  max_temperature_threshold: { family: 'temperature', quantity: 'count', range: [0, 200], change: 50 },
  min_temperature_threshold: { family: 'temperature', quantity: 'count', range: [0, 200], change: 50 },
  wet_bulb_temperature_threshold: { family: 'temperature', quantity: 'count', range: [0, 100], change: 50 },
  heat_index_threshold: { family: 'temperature', quantity: 'count', range: [0, 150], change: 50 },
  total_precipitation: { family: 'precipitation', quantity: 'amount', range: [0, 80], change: 10 },
  max_1day_precipitation: { family: 'precipitation', quantity: 'amount', range: [0, 5], change: 1 },
  max_nday_precipitation: { family: 'precipitation', quantity: 'amount', range: [0, 10], change: 2 },
  percentile_precipitation: { family: 'precipitation', quantity: 'rate', range: [0, 0.5], change: 0.1 },
  extreme_precipitation_events: { family: 'precipitation', quantity: 'count', range: [0, 50], change: 20 },
  precipitation_threshold: { family: 'precipitation', quantity: 'count', range: [0, 200], change: 50 },
  dry_spells: { family: 'precipitation', quantity: 'count', range: [0, 20], change: 5, reversed: true },
  max_consecutive_dry_days: { family: 'precipitation', quantity: 'count', range: [0, 100], change: 20, reversed: true },
};

/** Percent changes share one scale: +-50 %. */
const PERCENT_CHANGE = 50;

/** A value of `quantity` in the indicator's default units, in `units` (as the templates convert). */
function convert(spec: ScaleSpec, value: number, from: string, to: string, isChange: boolean): number {
  if (from === to) return value;
  switch (spec.quantity) {
    case 'temperature': {
      // A change of temperature converts as a difference.
      if (isChange) return convertDifference(value, from, to);
      const k = from === 'F' ? (value + 459.67) / 1.8 : from === 'C' ? value + 273.15 : value;
      return to === 'F' ? k * 1.8 - 459.67 : to === 'C' ? k - 273.15 : k;
    }
    case 'difference':
      return convertDifference(value, from, to);
    case 'amount': {
      const mm = from === 'in' ? value * 25.4 : value;
      return to === 'in' ? mm / 25.4 : mm;
    }
    case 'rate': {
      const mmPerDay = from === 'in/day' ? value * 25.4 : from === 'kg/m^2/s' ? value * 86400 : value;
      return to === 'in/day' ? mmPerDay / 25.4 : to === 'kg/m^2/s' ? mmPerDay / 86400 : mmPerDay;
    }
    default:
      return value;
  }
}

function convertDifference(value: number, from: string, to: string): number {
  const perF = from === 'F' ? 1 : 1.8;
  return (value * perF) / (to === 'F' ? 1 : 1.8);
}

/** A step of 1, 2, 2.5 or 5 times a power of ten, at least `raw`: breaks read as round numbers. */
function niceStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * power >= raw * (1 - 1e-9)) return m * power;
  return 10 * power;
}

/** Round-off of a break to the step's decimals, so that 0.1 * 3 prints as 0.3. */
const tidy = (x: number, step: number) => Number(x.toFixed(Math.max(0, -Math.floor(Math.log10(step)) + 1)));

function sequentialBreaks(lo: number, hi: number, classes: number): number[] {
  const step = niceStep((hi - lo) / classes);
  const start = Math.floor(lo / step) * step;
  return Array.from({ length: classes + 1 }, (_, i) => tidy(start + i * step, step));
}

function divergingBreaks(half: number, classes: number): number[] {
  const step = niceStep((2 * half) / classes);
  const start = -(classes / 2) * step;
  return Array.from({ length: classes + 1 }, (_, i) => tidy(start + i * step, step));
}

export function colourScale(meta: IndicatorMeta, units: string, change: 'absolute' | 'percent' | undefined): ColourScale {
  const spec = SPECS[meta.name];
  if (!spec) throw new Error(`No colour scale for ${meta.name}: add it to SPECS in src/maps/colourScale.ts.`);
  const classes = 10;
  const temperature = spec.family === 'temperature';
  // Reversed for colder or drier indicators, so that red always reads warmer and green or blue wetter:
  // few frost days and fewer of them than in the baseline are red, many dry days pale, more of them brown.
  const pick = (colours: string[]) => (spec.reversed ? [...colours].reverse() : colours);
  const suffix = spec.reversed ? '_r' : '';
  if (change === undefined) {
    const [lo, hi] = spec.range.map((v) => convert(spec, v, meta.defaultUnits, units, false)) as [number, number];
    return { kind: 'sequential', palette: `${temperature ? 'temp_seq' : 'prec_seq'}${suffix}`, breaks: sequentialBreaks(lo, hi, classes), colors: pick(temperature ? TEMP_SEQ : PREC_SEQ) };
  }
  const half = change === 'percent' ? PERCENT_CHANGE : Math.abs(convert(spec, spec.change, meta.defaultUnits, units, true));
  return { kind: 'diverging', palette: `${temperature ? 'temp_div' : 'prec_div'}${suffix}`, breaks: divergingBreaks(half, classes), colors: pick(temperature ? TEMP_DIV : PREC_DIV) };
}

/** Whether every indicator has a scale (a test checks it, so a new indicator cannot ship without one). */
export const hasColourScale = (name: string) => name in SPECS;
