import { describe, expect, it } from 'vitest';
import { compareVersions, parseCmip6Name } from '../src/ingest/netcdf/cmip6Names.js';
import { selectFiles } from '../src/ingest/netcdf/fileSelection.js';

describe('CMIP6 file names', () => {
  it('reads NEX-GDDP-CMIP6 names with and without a version suffix', () => {
    expect(parseCmip6Name('tasmax_day_ACCESS-CM2_historical_r1i1p1f1_gn_1950.nc')).toMatchObject({
      layout: 'NEX-GDDP-CMIP6', variable: 'tasmax', model: 'ACCESS-CM2', scenario: 'historical', member: 'r1i1p1f1', gridLabel: 'gn',
      years: [1950, 1950], version: [1, 0], versionLabel: 'v1.0',
    });
    const v2 = parseCmip6Name('pr_day_GFDL-CM4_ssp585_r1i1p1f1_gr2_2100_v2.0.nc')!;
    expect(v2).toMatchObject({ model: 'GFDL-CM4', gridLabel: 'gr2', years: [2100, 2100], version: [2, 0], versionLabel: 'v2.0' });
    expect(v2.fileKey).toBe(parseCmip6Name('pr_day_GFDL-CM4_ssp585_r1i1p1f1_gr2_2100.nc')!.fileKey);
    expect(v2.fileKey).not.toBe(parseCmip6Name('pr_day_GFDL-CM4_ssp585_r1i1p1f1_gr1_2100_v2.0.nc')!.fileKey);
    expect(parseCmip6Name('hurs_day_UKESM1-0-LL_ssp126_r1i1p1f2_gn_2015_v1.1.nc')).toMatchObject({ variable: 'hurs', member: 'r1i1p1f2' });
    // CMIP5 names are not CMIP6 names.
    expect(parseCmip6Name('tasmax_day_BCSD_rcp85_r1i1p1_ACCESS1-0_2050.nc')).toBeUndefined();
  });

  it('reads LOCA2 names: periods, version stamps, regions and aggregates in either order', () => {
    expect(parseCmip6Name('tasmax.ACCESS-CM2.ssp245.r1i1p1f1.2015-2044.LOCA_16thdeg_v20220413.nc')).toMatchObject({
      layout: 'LOCA2', variable: 'tasmax', model: 'ACCESS-CM2', scenario: 'ssp245', member: 'r1i1p1f1', years: [2015, 2044], version: [20220413],
      region: undefined, aggregate: undefined,
    });
    expect(parseCmip6Name('pr.GFDL-ESM4.historical.r1i1p1f1.1950-2014.LOCA_16thdeg_v20240915.n_east.nc')).toMatchObject({ region: 'n_east', aggregate: undefined });
    expect(parseCmip6Name('pr.ACCESS-CM2.ssp585.r1i1p1f1.2075-2100.LOCA_16thdeg_v20220519.monthly.e_n_cent.nc')).toMatchObject({ region: 'e_n_cent', aggregate: 'monthly' });
    expect(parseCmip6Name('pr.ACCESS-CM2.ssp585.r1i1p1f1.2075-2100.LOCA_16thdeg_v20220519.e_n_cent.yearly.nc')).toMatchObject({ region: 'e_n_cent', aggregate: 'yearly' });
    expect(compareVersions([20240915], [20220519])).toBe(1);
    expect(compareVersions([1, 0], [1, 1])).toBe(-1);
    expect(compareVersions([1], [1, 0])).toBe(0);
  });
});

describe('which files the ingest reads', () => {
  it('keeps the newest version of each file, skipping the others with the one read instead', () => {
    const d = '/data/nex6/';
    const { files, skipped } = selectFiles([
      `${d}tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2050.nc`,
      `${d}tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2050_v1.2.nc`,
      `${d}tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2050_v1.1.nc`,
      `${d}tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2051.nc`,
      `${d}copy/tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2051.nc`,
      `${d}tas_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2051.nc`,
      `${d}renamed.nc`,
    ]);
    // Unversioned names first, then by version.
    expect(files).toEqual([`${d}renamed.nc`, `${d}tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2051.nc`, `${d}tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2050_v1.2.nc`]);
    expect(skipped).toEqual([
      { file: `${d}tas_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2051.nc`, reason: 'holds tas; the service serves tasmax, tasmin, pr' },
      {
        file: `${d}tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2050.nc`,
        instead: `${d}tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2050_v1.2.nc`,
        reason: `v1.0, replaced by the newer v1.2: ${d}tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2050_v1.2.nc`,
      },
      {
        file: `${d}tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2050_v1.1.nc`,
        instead: `${d}tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2050_v1.2.nc`,
        reason: `v1.1, replaced by the newer v1.2: ${d}tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2050_v1.2.nc`,
      },
      {
        file: `${d}copy/tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2051.nc`,
        instead: `${d}tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2051.nc`,
        reason: `the same file (v1.0) as ${d}tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2051.nc, read once`,
      },
    ]);
  });

  it('reads LOCA2 files of different regions in any version, the newer last so its values win where they overlap', () => {
    const { files, skipped } = selectFiles([
      '/l/pr.ACCESS-CM2.ssp245.r1i1p1f1.2015-2044.LOCA_16thdeg_v20240915.n_east.nc',
      '/l/pr.ACCESS-CM2.ssp245.r1i1p1f1.2015-2044.LOCA_16thdeg_v20220519.nc',
      '/l/pr.ACCESS-CM2.ssp245.r1i1p1f1.2015-2044.LOCA_16thdeg_v20240915.n_east.monthly.nc',
    ]);
    expect(files).toEqual([
      '/l/pr.ACCESS-CM2.ssp245.r1i1p1f1.2015-2044.LOCA_16thdeg_v20220519.nc',
      '/l/pr.ACCESS-CM2.ssp245.r1i1p1f1.2015-2044.LOCA_16thdeg_v20240915.n_east.nc',
    ]);
    expect(skipped.map((s) => s.reason)).toEqual(['a LOCA2 monthly aggregate, not daily values (the ingest reads the daily files, named without .monthly)']);
  });
});
