import { cachedBuild } from './cachedBuild.js';

/**
 * A small build with 30 years per scenario, for the return levels (fitted over at least 20 years;
 * the suite's build has 3): two models per dataset, New York City's cells, historical 1971-2000
 * (the 1971 historic range) and the last 30 years of one future scenario per dataset (RCP85 for
 * the CMIP5 datasets, ssp585 for NEX-GDDP-CMIP6, ssp245 for LOCA2); the other scenarios a single
 * year. NEX-GDDP also has every cell of New York City's boundary, for areas.
 */
export const LONG_BUILD = {
  climateCities: 1,
  cmip6Cities: 1,
  areaCities: 1,
  seed: 11,
  models: {
    'NEX-GDDP': ['ACCESS1-0', 'CCSM4'],
    LOCA: ['ACCESS1-0', 'CCSM4'],
    // UKESM1-0-LL is on a 360-day calendar.
    'NEX-GDDP-CMIP6': ['ACCESS-CM2', 'UKESM1-0-LL'],
    LOCA2: ['ACCESS-CM2', 'TaiESM1'],
  },
  years: {
    historical: [1971, 2000], RCP45: [2100, 2100], RCP85: [2071, 2100],
    ssp126: [2100, 2100], ssp245: [2071, 2100], ssp370: [2100, 2100], ssp585: [2071, 2100],
  } as Record<string, [number, number]>,
};

/**
 * The build's folder, .tmp/builds/long: rebuilt (about 35 s) when anything it is made from
 * changed, as the suite's build is (test/global-setup.ts); one test file uses it.
 */
export function longDataset(): Promise<string> {
  return cachedBuild('long', LONG_BUILD);
}
