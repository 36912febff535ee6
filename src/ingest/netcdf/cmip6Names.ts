/**
 * The file names of the CMIP6 datasets as their publishers write them
 * (../shared/reference/cmip6.md, sections 1.6 and 2.2):
 *
 * - NEX-GDDP-CMIP6, one file per variable, model, scenario and year; a re-release carries a version
 *   suffix and sits beside the original: `tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2050.nc` (v1.0),
 *   `..._2050_v1.1.nc`, `_v1.2`, `_v2.0`.
 * - LOCA2, one file per variable, model, scenario, member and 30-year period, stamped with its
 *   version date, optionally split by region, with monthly / yearly aggregates beside the daily files:
 *   `pr.ACCESS-CM2.ssp245.r1i1p1f1.2015-2044.LOCA_16thdeg_v20240915[.n_east][.monthly].nc`.
 */

export interface Cmip6Name {
  layout: 'NEX-GDDP-CMIP6' | 'LOCA2';
  /** The variable as the name states it (any, not only tasmax, tasmin and pr). */
  variable: string;
  /** The model as the name states it (NEX-GDDP-CMIP6's GFDL-CM4 is one name for two grids). */
  model: string;
  scenario: string;
  member: string;
  /** NEX-GDDP-CMIP6's grid label (gn, gr, gr1, gr2); LOCA2 names carry none. */
  gridLabel?: string;
  /** The years the file holds, per its name. */
  years: [number, number];
  /** Version for ordering, compared number by number: [1, 0], [1, 1], [20240915]. */
  version: number[];
  /** The version as the name writes it ('v1.0' when NEX-GDDP-CMIP6 writes none). */
  versionLabel: string;
  /** LOCA2 region of a CONUS_regions_split file (cent, n_east, ...). */
  region?: string;
  /** LOCA2 monthly or yearly aggregate (not daily values). */
  aggregate?: 'monthly' | 'yearly';
  /** Identifies the publisher's file whatever its version: versions of one file share it. */
  fileKey: string;
}

// The model part has no underscore in NEX-GDDP-CMIP6 names (GFDL-CM4_gr2 is a directory, not a name).
const NEX6 = /^([A-Za-z]+)_day_([^_]+)_(historical|ssp\d{3})_(r\d+i\d+p\d+f\d+)_(g[a-z]*\d*)_(\d{4})(?:_v(\d+(?:\.\d+)*))?\.nc4?$/i;
const LOCA2 = /^([A-Za-z_]+)\.([^.]+)\.(historical|ssp\d{3})\.(r\d+i\d+p\d+f\d+)\.(\d{4})-(\d{4})\.LOCA_16thdeg_v(\d{8})((?:\.[A-Za-z_]+)*)\.nc4?$/i;

/** The CMIP6 naming a base file name follows, or undefined. */
export function parseCmip6Name(base: string): Cmip6Name | undefined {
  let m = NEX6.exec(base);
  if (m) {
    const version = m[7] ?? '1.0';
    const [variable, model, scenario, member, gridLabel, year] = [m[1]!, m[2]!, m[3]!.toLowerCase(), m[4]!, m[5]!.toLowerCase(), Number(m[6])];
    return {
      layout: 'NEX-GDDP-CMIP6',
      variable,
      model,
      scenario,
      member,
      gridLabel,
      years: [year, year],
      version: version.split('.').map(Number),
      versionLabel: `v${version}`,
      fileKey: ['NEX-GDDP-CMIP6', variable, model, scenario, member, gridLabel, year].join('|'),
    };
  }
  m = LOCA2.exec(base);
  if (m) {
    const [variable, model, scenario, member] = [m[1]!, m[2]!, m[3]!.toLowerCase(), m[4]!];
    const years: [number, number] = [Number(m[5]), Number(m[6])];
    // The tail after the version: a region and / or monthly|yearly, in either order (both are published).
    const tail = m[8]!.split('.').filter((s) => s !== '').map((s) => s.toLowerCase());
    const aggregate = tail.find((s): s is 'monthly' | 'yearly' => s === 'monthly' || s === 'yearly');
    const region = tail.find((s) => s !== 'monthly' && s !== 'yearly');
    return {
      layout: 'LOCA2',
      variable,
      model,
      scenario,
      member,
      years,
      version: [Number(m[7])],
      versionLabel: `v${m[7]}`,
      region,
      aggregate,
      fileKey: ['LOCA2', variable, model, scenario, member, years.join('-'), region ?? '', aggregate ?? ''].join('|'),
    };
  }
  return undefined;
}

/** -1, 0 or 1 as version a is older than, the same as or newer than b. */
export function compareVersions(a: number[], b: number[]): number {
  for (let k = 0; k < Math.max(a.length, b.length); k++) {
    const d = (a[k] ?? 0) - (b[k] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/**
 * Models a CMIP6 dataset publishes that this service does not offer, and why: a file of one is
 * refused with the reason rather than with a bare "not a model".
 */
export const LEFT_OUT_MODELS: Record<string, Record<string, string>> = {
  'NEX-GDDP-CMIP6': {
    'IITM-ESM':
      'NEX-GDDP-CMIP6 has no daily tasmax or tasmin for IITM-ESM, and its years divisible by 5 have 364 daily steps on a standard calendar ' +
      '(a day of the real year dropped), which cannot be placed on real dates',
    CESM2: 'NEX-GDDP-CMIP6 has no daily tasmax or tasmin for CESM2',
    'CESM2-WACCM': 'NEX-GDDP-CMIP6 has no daily tasmax or tasmin for CESM2-WACCM',
  },
};
