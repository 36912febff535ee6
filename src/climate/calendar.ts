/**
 * Day slots of the raw data (0-based day of year, as sql/climate/raw_daily.sql computes them from
 * real dates) back to dates: slot 59 is Feb 29 in leap years and Mar 1 otherwise, and slot 365
 * exists only in leap years.
 */

export const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

const DAY_MS = 86_400_000;

/** Days from 1970-01-01 to Jan 1 of `year` (Arrow's date32). */
export const epochDay = (year: number) => Date.UTC(year, 0, 1) / DAY_MS;

function monthDays(leap: boolean): string[] {
  const base = Date.UTC(leap ? 2000 : 2001, 0, 1);
  return Array.from({ length: leap ? 366 : 365 }, (_, slot) => new Date(base + slot * DAY_MS).toISOString().slice(5, 10));
}

const MONTH_DAY = { leap: monthDays(true), common: monthDays(false) };

/** `MM-DD` of each slot of `year`. */
export const monthDayTexts = (year: number): string[] => (isLeapYear(year) ? MONTH_DAY.leap : MONTH_DAY.common);
