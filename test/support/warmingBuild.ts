/**
 * A data build whose years hold the warming-level windows of its models (the suite's shared build
 * has three years per scenario, no window): New York City and Los Angeles (an area over both has two
 * cells), CMIP6 data for New York City, three models per dataset chosen for the cases the tests need:
 * - NEX-GDDP: CCSM4 (its 1.0 and 1.5 °C windows start in the historical run; no 3.0 °C in RCP4.5),
 *   GFDL-ESM2G (only in the 1861-1900 table; no 2.0 °C in RCP4.5), MIROC-ESM (in no table);
 *   RCP4.5 ends in 2050, so GFDL-ESM2G's 1.5 °C window (2041-2060) is not all in the data.
 * - LOCA: CanESM2 (1.5 °C from 2004), GFDL-ESM2G, MRI-CGCM3 (no 4.0 °C in RCP8.5).
 * - NEX-GDDP-CMIP6: CanESM5 (1.0 °C 1990-2009, nearly all historical), GFDL-CM4_gr2 (GFDL-CM4's
 *   windows), NorESM2-LM (no 3.0 °C in SSP2-4.5); SSP1-2.6 only to 2030.
 * - LOCA2: CESM2-LENS (in no table, ssp370 only), EC-Earth3-Veg (1.0 °C 1984-2003, all historical),
 *   TaiESM1 (no ssp585 run).
 */
export const WARMING_BUILD = {
  climateCities: 2,
  cmip6Cities: 1,
  seed: 5,
  models: {
    'NEX-GDDP': ['CCSM4', 'GFDL-ESM2G', 'MIROC-ESM'],
    LOCA: ['CanESM2', 'GFDL-ESM2G', 'MRI-CGCM3'],
    'NEX-GDDP-CMIP6': ['CanESM5', 'GFDL-CM4_gr2', 'NorESM2-LM'],
    LOCA2: ['CESM2-LENS', 'EC-Earth3-Veg', 'TaiESM1'],
  } as Record<string, string[]>,
  years: { historical: [1961, 2014], RCP45: [2006, 2050], ssp126: [2015, 2030] } as Record<string, [number, number]>,
};
