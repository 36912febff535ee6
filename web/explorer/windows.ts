/**
 * The API answers a window aggregation only when every window has a year within the scenario's
 * years, and the scenarios cover different years (historical ends where the RCPs begin): each
 * scenario is asked for the windows that overlap its own years.
 */

/** The windows ('start:end', comma separated) that overlap [first, last]; '' if none does. */
export function windowsWithin(windows: string, first: number, last: number): string {
  return windows
    .split(',')
    .map((w) => w.trim())
    .filter((w) => {
      const m = /^(\d{1,4}):(\d{1,4})$/.exec(w);
      // Anything else goes to the API unchanged, which explains what it accepts.
      return !m || (Number(m[1]) <= last && Number(m[2]) >= first);
    })
    .join(',');
}

/** The first and last year of a yearly answer's periods, if it has any. */
export function yearSpan(periods: string[]): [number, number] | undefined {
  const years = periods.filter((p) => /^\d{4}$/.test(p)).map(Number);
  return years.length > 0 ? [Math.min(...years), Math.max(...years)] : undefined;
}
