/**
 * The humid-heat formulas written again from their sources (Stull 2011; the US National Weather
 * Service's heat index; Bolton 1980), not read from the service's SQL: the tests' independent
 * computation of the four indicators from raw days.
 */
export const stull = (t: number, rh: number) =>
  t * Math.atan(0.151977 * Math.sqrt(rh + 8.313659)) + Math.atan(t + rh) - Math.atan(rh - 1.676331) + 0.00391838 * rh ** 1.5 * Math.atan(0.023101 * rh) - 4.686035;
export const wetBulbK = (tas: number, hurs: number) => stull(tas - 273.15, Math.min(100, Math.max(0, hurs))) + 273.15;
export function nws(t: number, rh: number): number {
  const simple = 0.5 * (t + 61 + (t - 68) * 1.2 + rh * 0.094);
  if ((simple + t) / 2 < 80) return simple;
  let hi = -42.379 + 2.04901523 * t + 10.14333127 * rh - 0.22475541 * t * rh - 0.00683783 * t * t - 0.05481717 * rh * rh + 0.00122874 * t * t * rh + 0.00085282 * t * rh * rh - 0.00000199 * t * t * rh * rh;
  if (rh < 13 && t >= 80 && t <= 112) hi -= ((13 - rh) / 4) * Math.sqrt((17 - Math.abs(t - 95)) / 17);
  if (rh > 85 && t >= 80 && t <= 87) hi += ((rh - 85) / 10) * ((87 - t) / 5);
  return hi;
}
export function rhFromHuss(q: number, tK: number): number {
  const c = tK - 273.15;
  const e = (q * 1013.25) / (0.622 + 0.378 * q);
  return Math.min(100, (100 * e) / (6.112 * Math.exp((17.67 * c) / (c + 243.5))));
}
export const heatIndexK = (tasmax: number, huss: number) => (nws((tasmax - 273.15) * 1.8 + 32, rhFromHuss(huss, tasmax)) + 459.67) / 1.8;
export const toF = (k: number) => k * 1.8 - 459.67;

/** Raw days as the API answers them: year -> variable -> 366 slots. */
export type Days = Record<string, Record<string, (number | null)[]>>;

/** Per year, the days' values of f over the slots where every variable has a value. */
export function perYear(data: Days, vars: string[], f: (...x: number[]) => number): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const [year, v] of Object.entries(data)) {
    const list: number[] = [];
    for (let s = 0; s < 366; s++) {
      const x = vars.map((name) => v[name]![s]);
      // The JSON has the shortest decimal of each stored float32: fround gives that float32 back, as the SQL reads it.
      if (x.every((y) => y !== null && y !== undefined)) list.push(f(...(x as number[]).map(Math.fround)));
    }
    out.set(year, list);
  }
  return out;
}
