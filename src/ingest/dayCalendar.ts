/**
 * The calendar place of each day of a span of consecutive dates (days since 1970-01-01, DuckDB's
 * DATE): its year, its month (0-11) and its slot (day of the year - 1). Counted forward from the
 * first date, not a Date per day: the build asks for it for every cell and scenario.
 */
export function calendarOfDays(first: number, span: number) {
  const year = new Int32Array(span);
  const month = new Uint8Array(span);
  const slot = new Int16Array(span);
  const start = new Date(first * DAY_MS);
  let y = start.getUTCFullYear();
  let m = start.getUTCMonth();
  let dayOfMonth = start.getUTCDate();
  let s = (first * DAY_MS - Date.UTC(y, 0, 1)) / DAY_MS;
  for (let i = 0; i < span; i++) {
    year[i] = y;
    month[i] = m;
    slot[i] = s;
    s++;
    if (dayOfMonth < daysInMonth(y, m)) {
      dayOfMonth++;
    } else {
      dayOfMonth = 1;
      if (++m === 12) {
        y++;
        m = 0;
        s = 0;
      }
    }
  }
  return { year, month, slot };
}

const DAY_MS = 86_400_000;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysInMonth = (year: number, month: number) => (month === 1 && ((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0) ? 29 : DAYS_IN_MONTH[month]!);
