/**
 * CF time coordinates ("<unit> since <reference>", a calendar) to real dates, as days since
 * 1970-01-01 (the proleptic Gregorian calendar DuckDB's DATE uses).
 *
 * - standard / gregorian / proleptic_gregorian: the dates as they are. (standard and gregorian are
 *   Julian before 1582-10-15; a reference date that early is refused rather than silently shifted.)
 * - noleap / 365_day: the same month and day; such a year has no Feb 29, so that date has no row.
 * - 360_day (twelve 30-day months): day d (1..360) of a year becomes day round(d * N / 360) of the
 *   real year, N = 365 or 366, rounding half to even. This is xarray's
 *   `convert_calendar(..., align_on="year")`: days keep their relative position in the year and the 5
 *   (6 in leap years) real dates nothing maps to have no row. See docs/ingest.md.
 */

export type Calendar = 'standard' | 'noleap' | '360_day';

const CALENDARS: Record<string, Calendar> = {
  standard: 'standard',
  gregorian: 'standard',
  proleptic_gregorian: 'standard',
  noleap: 'noleap',
  '365_day': 'noleap',
  '360_day': '360_day',
};

/** The calendar attribute (CF's default is standard), or an error listing the accepted ones. */
export function parseCalendar(attr: string | undefined): { calendar: Calendar; name: string } {
  const name = (attr ?? 'standard').trim().toLowerCase();
  const calendar = CALENDARS[name];
  if (!calendar) {
    throw new Error(`time has calendar '${attr}', which is not supported; supported calendars: ${Object.keys(CALENDARS).join(', ')}`);
  }
  return { calendar, name };
}

const UNIT_DAYS: Record<string, number> = {
  day: 1, days: 1, d: 1,
  hour: 1 / 24, hours: 1 / 24, hr: 1 / 24, hrs: 1 / 24, h: 1 / 24,
  minute: 1 / 1440, minutes: 1 / 1440, min: 1 / 1440, mins: 1 / 1440,
  second: 1 / 86400, seconds: 1 / 86400, sec: 1 / 86400, secs: 1 / 86400, s: 1 / 86400,
};

export interface TimeUnits {
  /** Length of one unit in days. */
  unitDays: number;
  year: number;
  month: number;
  day: number;
  /** Time of day of the reference, as a fraction of a day (UTC). */
  dayFraction: number;
}

const UNITS_RE =
  /^\s*([a-z]+)\s+since\s+(-?\d{1,4})-(\d{1,2})-(\d{1,2})(?:(?:\s+|T)(\d{1,2}):(\d{1,2})(?::(\d{1,2}(?:\.\d*)?))?)?\s*(Z|UTC|GMT|[+-]\d{1,2}(?::?\d{2})?)?\s*$/i;

/** "days since 1950-01-01", "hours since 1900-1-1 0:0:0", "seconds since 2006-01-01T12:00:00Z", ... */
export function parseTimeUnits(units: string | undefined): TimeUnits {
  const m = units === undefined ? null : UNITS_RE.exec(units);
  const unitDays = m ? UNIT_DAYS[m[1]!.toLowerCase()] : undefined;
  if (!m || unitDays === undefined) {
    throw new Error(
      `time has units '${units ?? '(none)'}'; expected '<days|hours|minutes|seconds> since <yyyy-mm-dd[ hh:mm[:ss]]>'`,
    );
  }
  let fraction = (Number(m[5] ?? 0) * 3600 + Number(m[6] ?? 0) * 60 + Number(m[7] ?? 0)) / 86400;
  const zone = m[8];
  if (zone && /^[+-]/.test(zone)) {
    const z = /^([+-])(\d{1,2}):?(\d{2})?$/.exec(zone)!;
    fraction -= (z[1] === '-' ? -1 : 1) * (Number(z[2]) + Number(z[3] ?? 0) / 60) / 24;
  }
  return { unitDays, year: Number(m[2]), month: Number(m[3]), day: Number(m[4]), dayFraction: fraction };
}

export const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
export function epochDay(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The year of a day since 1970-01-01. */
export function yearOf(day: number): number {
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const m = mp + (mp < 10 ? 3 : -9);
  return yoe + era * 400 + (m <= 2 ? 1 : 0);
}

export function isoDate(day: number): string {
  return new Date(day * 86400000).toISOString().slice(0, 10);
}

const NOLEAP_MONTH_START = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];

function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Day d (1-based) of a 360-day year as the day of the real year (see the module comment). */
export function day360ToDayOfYear(year: number, d: number): number {
  return roundHalfEven(((isLeap(year) ? 366 : 365) * d) / 360);
}

/** Days in a year of the calendar. */
export function daysInYear(calendar: Calendar, year: number): number {
  return calendar === '360_day' ? 360 : calendar === 'noleap' ? 365 : isLeap(year) ? 366 : 365;
}

/**
 * Time coordinate values to day numbers counted in the file's own calendar (consecutive days differ
 * by 1 in every calendar), with the calendar's year of each: what tells a day the file lacks.
 */
export function calendarDays(values: ArrayLike<number>, unitsAttr: string | undefined, calendarAttr: string | undefined): { calendar: Calendar; days: Float64Array; years: Int32Array } {
  const u = parseTimeUnits(unitsAttr);
  const { calendar } = parseCalendar(calendarAttr);
  if (calendar === 'standard' && (u.year < 1582 || (u.year === 1582 && (u.month < 10 || (u.month === 10 && u.day < 15)))) && calendarAttr?.toLowerCase() !== 'proleptic_gregorian') {
    throw new Error(`time units '${unitsAttr}' refer to a date before 1582-10-15 in the mixed Julian/Gregorian calendar, which is not supported`);
  }
  if (u.month < 1 || u.month > 12 || u.day < 1 || u.day > (calendar === '360_day' ? 30 : 31)) {
    throw new Error(`time units '${unitsAttr}' name an invalid reference date`);
  }
  let ref: number;
  if (calendar === 'standard') ref = epochDay(u.year, u.month, u.day);
  else if (calendar === 'noleap') ref = u.year * 365 + NOLEAP_MONTH_START[u.month - 1]! + u.day - 1;
  else ref = u.year * 360 + (u.month - 1) * 30 + u.day - 1;
  const days = new Float64Array(values.length);
  const years = new Int32Array(values.length);
  for (let k = 0; k < values.length; k++) {
    const v = values[k]!;
    if (!Number.isFinite(v)) throw new Error(`time value ${v} at index ${k} is not a number`);
    // A microsecond of slack: "hours since" axes hold values like 24 * n - 1e-9 after float rounding.
    const n = Math.floor(ref + u.dayFraction + v * u.unitDays + 1e-9);
    days[k] = n;
    years[k] = calendar === 'standard' ? yearOf(n) : Math.floor(n / (calendar === 'noleap' ? 365 : 360));
  }
  return { calendar, days, years };
}

/** Time coordinate values to days since 1970-01-01; throws when the steps are not distinct days. */
export function decodeTimes(values: ArrayLike<number>, unitsAttr: string | undefined, calendarAttr: string | undefined): Int32Array {
  const { calendar, days } = calendarDays(values, unitsAttr, calendarAttr);
  const out = new Int32Array(values.length);
  for (let k = 0; k < values.length; k++) {
    const n = days[k]!;
    if (calendar === 'standard') out[k] = n;
    else if (calendar === 'noleap') {
      const y = Math.floor(n / 365);
      const doy = n - y * 365;
      let m = 0;
      while (NOLEAP_MONTH_START[m + 1]! <= doy) m++;
      out[k] = epochDay(y, m + 1, doy - NOLEAP_MONTH_START[m]! + 1);
    } else {
      const y = Math.floor(n / 360);
      out[k] = epochDay(y, 1, 1) + day360ToDayOfYear(y, n - y * 360 + 1) - 1;
    }
    if (k > 0 && out[k]! <= out[k - 1]!) {
      throw new Error(`time steps ${k - 1} and ${k} fall on ${isoDate(out[k - 1]!)} and ${isoDate(out[k]!)}: the ingest takes daily values in increasing time order`);
    }
  }
  return out;
}
