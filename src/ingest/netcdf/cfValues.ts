/**
 * A variable's stored numbers to values in storage units (K; kg m-2 s-1; % for hurs; kg kg-1 for huss): _FillValue and
 * missing_value (compared with the packed numbers, as CF says) and NaN become NaN, then
 * scale_factor and add_offset unpack, then the units convert.
 */

export type Variable = 'tasmax' | 'tasmin' | 'pr' | 'tas' | 'hurs' | 'huss';
/** Every variable the ingest reads; which of them a dataset has is src/reference/datasetVariables.ts's. */
export const VARIABLES: Variable[] = ['tasmax', 'tasmin', 'pr', 'tas', 'hurs', 'huss'];

export type AttrValue = string | number | number[];

const normalize = (units: string) => units.trim().toLowerCase().replace(/\*\*|\^/g, '').replace(/\s+/g, ' ');

const TEMPERATURE: [string[], (x: number) => number][] = [
  [['K', 'Kelvin', 'degK', 'deg_K', 'degrees_K', 'degree_K'], (x) => x],
  [['degC', 'deg_C', 'C', 'Celsius', 'degrees_C', 'degree_C', 'degrees_Celsius', 'degree_Celsius', '°C'], (x) => x + 273.15],
  [['degF', 'deg_F', 'F', 'Fahrenheit', 'degrees_F', 'degree_F', 'degrees_Fahrenheit', '°F'], (x) => ((x - 32) * 5) / 9 + 273.15],
];

const PRECIPITATION: [string[], (x: number) => number][] = [
  [['kg m-2 s-1', 'kg/m2/s', 'kg m-2/s', 'kg.m-2.s-1', 'kg/(m2 s)', 'kg/m2 s', 'mm s-1', 'mm/s', 'mm.s-1'], (x) => x],
  [['mm/day', 'mm day-1', 'mm d-1', 'mm/d', 'mm.day-1', 'mm.d-1', 'kg m-2 day-1', 'kg m-2 d-1', 'kg/m2/day', 'kg/m2/d'], (x) => x / 86400],
  [['m s-1', 'm/s'], (x) => x * 1000],
  [['m/day', 'm day-1', 'm d-1', 'm/d'], (x) => (x * 1000) / 86400],
];

// NEX-GDDP-CMIP6 writes hurs in % (cmip6.md 1.3); a fraction is not accepted under '1', which huss uses.
const RELATIVE_HUMIDITY: [string[], (x: number) => number][] = [[['%', 'percent', 'pct'], (x) => x]];

// huss is `1` in NEX-GDDP-CMIP6's v1.0 files and `kg kg-1` elsewhere: the same number.
const SPECIFIC_HUMIDITY: [string[], (x: number) => number][] = [
  [['1', 'kg kg-1', 'kg/kg', 'kg.kg-1'], (x) => x],
  [['g kg-1', 'g/kg', 'g.kg-1'], (x) => x / 1000],
];

const UNIT_TABLES: Record<Variable, { table: [string[], (x: number) => number][]; storage: string }> = {
  tasmax: { table: TEMPERATURE, storage: 'K' },
  tasmin: { table: TEMPERATURE, storage: 'K' },
  tas: { table: TEMPERATURE, storage: 'K' },
  pr: { table: PRECIPITATION, storage: 'kg m-2 s-1' },
  hurs: { table: RELATIVE_HUMIDITY, storage: '%' },
  huss: { table: SPECIFIC_HUMIDITY, storage: 'kg kg-1' },
};

/** The conversion of `units` to the variable's storage units, or an error listing what converts. */
export function unitConversion(variable: Variable, units: string | undefined): (x: number) => number {
  const { table, storage } = UNIT_TABLES[variable];
  const accepted = table.flatMap(([names]) => names);
  if (units === undefined) throw new Error(`${variable} has no units attribute; expected one of: ${accepted.join(', ')}`);
  const found = table.find(([names]) => names.some((n) => normalize(n) === normalize(units)));
  if (!found) {
    throw new Error(
      `${variable} has units '${units}', which cannot be converted to ${storage}; accepted (any case, ^ or ** optional): ${accepted.join(', ')}`,
    );
  }
  return found[1];
}

const numbers = (v: AttrValue | undefined): number[] => (v === undefined || typeof v === 'string' ? [] : typeof v === 'number' ? [v] : v);

export interface ValueDecoder {
  /** A stored number to the value in storage units, NaN when missing. */
  decode(raw: number): number;
  fillValues: number[];
}

export function valueDecoder(variable: Variable, attrs: Record<string, AttrValue>): ValueDecoder {
  const convert = unitConversion(variable, typeof attrs.units === 'string' ? attrs.units : undefined);
  const fillValues = [...numbers(attrs._FillValue), ...numbers(attrs.missing_value)];
  const scale = numbers(attrs.scale_factor)[0] ?? 1;
  const offset = numbers(attrs.add_offset)[0] ?? 0;
  // A float32 fill value (1e20) is read back as float32: compare both ways. A few numbers compared
  // in turn, not a Set: decode runs once per value read (a Set lookup cost 30-50 ns of it).
  const fills = Float64Array.from(new Set(fillValues.flatMap((f) => [f, Math.fround(f)])));
  const n = fills.length;
  const identity = scale === 1 && offset === 0 && convert(1) === 1 && convert(0) === 0 && convert(273.15) === 273.15;
  return {
    fillValues,
    decode(raw) {
      if (raw !== raw) return NaN;
      for (let k = 0; k < n; k++) if (raw === fills[k]) return NaN;
      return identity ? raw : convert(raw * scale + offset);
    },
  };
}
