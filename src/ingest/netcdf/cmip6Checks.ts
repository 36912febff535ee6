import type { ModelRun } from '../../reference/fixtures.js';
import { daysInYear, isoDate, type Calendar } from './cfTime.js';

/**
 * The catalog's model for a NEX-GDDP-CMIP6 file: GFDL-CM4's files on grid gr2 are named
 * `..._GFDL-CM4_..._gr2_...` but published (and offered here) as the model directory GFDL-CM4_gr2.
 */
export function modelDirectory(model: string, gridLabel: string | undefined, runs: ModelRun[]): string {
  const dir = gridLabel ? `${model}_${gridLabel}` : undefined;
  return dir && runs.some((r) => r.model === dir) ? dir : model;
}

/**
 * Why a CMIP6 file does not belong to the run the catalog offers for its model (one member, one
 * grid, its scenarios), or undefined when it does. Values of another member or grid would be
 * served under the model's name as if they were the catalog's run, so such files are refused.
 */
export function runMismatch(dataset: string, run: ModelRun, runs: ModelRun[], scenario: string, member: string | undefined, gridLabel: string | undefined): string | undefined {
  if (!run.scenarios.includes(scenario)) {
    return `model ${run.model} has no ${scenario} in ${dataset} (its scenarios: ${run.scenarios.join(', ')})`;
  }
  if (member !== undefined && run.member !== null && member !== run.member) {
    return `its ensemble member is ${member}, but ${dataset} offers ${run.model} as member ${run.member}, the run the catalog lists; expected member ${run.member}`;
  }
  if (gridLabel !== undefined && run.gridLabel !== null && gridLabel !== run.gridLabel) {
    const others = runs.filter((r) => r.model.startsWith(`${run.model}_`)).map((r) => `${r.gridLabel} files belong to ${r.model}`);
    return `its grid label is ${gridLabel}, but ${dataset}'s ${run.model} files have grid label ${run.gridLabel}; expected grid ${run.gridLabel}` +
      (others.length > 0 ? ` (${others.join('; ')})` : '');
  }
  return undefined;
}

/**
 * Why a CMIP6 file's time axis lacks days of its own calendar, or undefined when it is whole. Every
 * step must be the day after the one before it, and every year the name states must have all of its
 * calendar's days (the publishers' files hold whole years). A year short of days cannot be placed on
 * real dates without guessing which days are gone: IITM-ESM's NEX-GDDP-CMIP6 years divisible by 5
 * have 364 steps on a standard calendar. `days` are day numbers in the file's calendar, `years`
 * their calendar years, `dates` the real dates (days since 1970-01-01) for the message.
 */
export function incompleteDays(
  calendar: Calendar,
  calendarName: string,
  axis: { days: Float64Array; years: Int32Array },
  dates: Int32Array,
  statedYears: [number, number] | undefined,
): string | undefined {
  const { days, years } = axis;
  const gaps: string[] = [];
  let missing = 0;
  let gapCount = 0;
  for (let k = 1; k < days.length; k++) {
    const step = days[k]! - days[k - 1]!;
    if (step > 1) {
      missing += step - 1;
      gapCount++;
      if (gaps.length < 3) gaps.push(`${step - 1} after ${isoDate(dates[k - 1]!)}`);
    }
  }
  const counts = new Map<number, number>();
  for (const y of years) counts.set(y, (counts.get(y) ?? 0) + 1);
  const short: string[] = [];
  if (statedYears) {
    for (let y = statedYears[0]; y <= statedYears[1]; y++) {
      const n = counts.get(y) ?? 0;
      if (n !== daysInYear(calendar, y)) short.push(`${n} daily steps for ${y}, whose year has ${daysInYear(calendar, y)} days on the ${calendarName} calendar`);
    }
  }
  if (missing === 0 && short.length === 0) return undefined;
  const what = [
    ...short.slice(0, 3),
    ...(short.length > 3 ? [`${short.length - 3} more years short`] : []),
    ...(missing > 0 ? [`no step for ${missing} day(s) of its calendar (${gaps.join('; ')}${gapCount > gaps.length ? '; ...' : ''})`] : []),
  ];
  return (
    `it has ${what.join('; ')}. A year missing days cannot be placed on real dates without guessing which days are gone ` +
    '(IITM-ESM in NEX-GDDP-CMIP6 has such 364-day years), so the file is refused'
  );
}
