import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import h5wasm from 'h5wasm/node';
import { afterAll, describe, expect, it } from 'vitest';
import { planArchive, writeArchive } from '../scripts/archiveModel/archive.js';
import { fixtureAxes, fixtureTimes } from '../scripts/archiveModel/fixtureFiles.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-archive-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('the scale model of the archives (make archive-model)', () => {
  it('names and files NEX-GDDP-CMIP6 years and LOCA2 periods as their publishers do', () => {
    const nex = planArchive({ dataset: 'NEX-GDDP-CMIP6', models: ['UKESM1-0-LL', 'GFDL-CM4_gr2'], scenarios: ['ssp245'], years: [2050, 2051], variables: ['tasmax', 'pr'] });
    expect(nex.map((f) => f.path)).toEqual([
      'NEX-GDDP-CMIP6/UKESM1-0-LL/ssp245/r1i1p1f2/tasmax/tasmax_day_UKESM1-0-LL_ssp245_r1i1p1f2_gn_2050.nc',
      'NEX-GDDP-CMIP6/UKESM1-0-LL/ssp245/r1i1p1f2/pr/pr_day_UKESM1-0-LL_ssp245_r1i1p1f2_gn_2050.nc',
      'NEX-GDDP-CMIP6/UKESM1-0-LL/ssp245/r1i1p1f2/tasmax/tasmax_day_UKESM1-0-LL_ssp245_r1i1p1f2_gn_2051.nc',
      'NEX-GDDP-CMIP6/UKESM1-0-LL/ssp245/r1i1p1f2/pr/pr_day_UKESM1-0-LL_ssp245_r1i1p1f2_gn_2051.nc',
      'NEX-GDDP-CMIP6/GFDL-CM4_gr2/ssp245/r1i1p1f1/tasmax/tasmax_day_GFDL-CM4_ssp245_r1i1p1f1_gr2_2050.nc',
      'NEX-GDDP-CMIP6/GFDL-CM4_gr2/ssp245/r1i1p1f1/pr/pr_day_GFDL-CM4_ssp245_r1i1p1f1_gr2_2050.nc',
      'NEX-GDDP-CMIP6/GFDL-CM4_gr2/ssp245/r1i1p1f1/tasmax/tasmax_day_GFDL-CM4_ssp245_r1i1p1f1_gr2_2051.nc',
      'NEX-GDDP-CMIP6/GFDL-CM4_gr2/ssp245/r1i1p1f1/pr/pr_day_GFDL-CM4_ssp245_r1i1p1f1_gr2_2051.nc',
    ]);
    expect(nex[0]!.spec.calendar).toBe('360_day');
    expect(nex[4]!.spec.calendar).toBe('365_day');

    // Full size: the global 0.25 degree grid, 600 x 1440, longitudes 0..360, one day per chunk.
    const whole = fixtureAxes(nex[0]!.spec);
    expect([whole.lats.length, whole.lons.length]).toEqual([600, 1440]);
    expect([whole.lats[0], whole.lats[599], whole.lons[0], whole.lons[1439]]).toEqual([-59.875, 89.875, 0.125, 359.875]);
    expect(fixtureTimes(nex[0]!.spec).steps).toBe(360);

    // LOCA2: the periods that overlap the years; CESM2-LENS has only ssp370 among the SSPs.
    const loca = planArchive({ dataset: 'LOCA2', models: ['ACCESS-CM2', 'CESM2-LENS'], scenarios: ['historical', 'ssp245'], years: [2010, 2050], variables: ['pr'] });
    expect(loca.map((f) => f.path)).toEqual([
      'LOCA2/ACCESS-CM2/0p0625deg/r1i1p1f1/historical/pr/pr.ACCESS-CM2.historical.r1i1p1f1.1950-2014.LOCA_16thdeg_v20240915.nc',
      'LOCA2/ACCESS-CM2/0p0625deg/r1i1p1f1/ssp245/pr/pr.ACCESS-CM2.ssp245.r1i1p1f1.2015-2044.LOCA_16thdeg_v20240915.nc',
      'LOCA2/ACCESS-CM2/0p0625deg/r1i1p1f1/ssp245/pr/pr.ACCESS-CM2.ssp245.r1i1p1f1.2045-2074.LOCA_16thdeg_v20240915.nc',
      'LOCA2/CESM2-LENS/0p0625deg/r1i1p1f1/historical/pr/pr.CESM2-LENS.historical.r1i1p1f1.1950-2014.LOCA_16thdeg_v20240915.nc',
    ]);
    expect(fixtureTimes(loca[1]!.spec).steps).toBe(10958);
  });

  it('refuses a request it cannot model, naming the field', () => {
    const ok = { dataset: 'NEX-GDDP-CMIP6' as const, models: ['ACCESS-CM2'], scenarios: ['ssp245'], years: [2050, 2050] as [number, number], variables: ['tasmax' as const] };
    expect(() => planArchive({ ...ok, models: ['ACCESS1-0'] })).toThrow(/MODELS: 'ACCESS1-0' is not a NEX-GDDP-CMIP6 model/);
    expect(() => planArchive({ ...ok, scenarios: ['rcp85'] })).toThrow(/SCENARIOS: 'rcp85' is not a NEX-GDDP-CMIP6 scenario/);
    expect(() => planArchive({ ...ok, bbox: [10, 50, 5, 55] })).toThrow(/BBOX is west,south,east,north with west < east/);
    expect(() => planArchive({ ...ok, dataset: 'LOCA2', bbox: [10, 50, 20, 55] })).toThrow(/holds no LOCA2 cell centre/);
  });

  it('writes a box: shuffled and deflated, a day per chunk, the sea filled, kept when already there', async () => {
    // New York harbour and the Atlantic south of Long Island.
    const files = planArchive({ dataset: 'NEX-GDDP-CMIP6', models: ['CanESM5'], scenarios: ['ssp585'], years: [2052, 2052], variables: ['tasmin'], bbox: [-74.5, 40.0, -73.0, 41.0] });
    const first = await writeArchive(tmp, files);
    expect(first.written).toHaveLength(1);
    const again = await writeArchive(tmp, files);
    expect(again).toEqual({ written: [], kept: first.written });
    await h5wasm.ready;
    const f = new h5wasm.File(first.written[0]!, 'r');
    try {
      const v = f.get('tasmin') as unknown as { shape: number[]; filters: { id: number }[]; metadata: { chunks: number[] }; value: Float32Array };
      expect(v.shape).toEqual([365, 4, 6]);
      expect(v.metadata.chunks).toEqual([1, 4, 6]);
      expect(v.filters.map((x) => x.id)).toEqual([2, 1]);
      expect(Array.from((f.get('lon') as unknown as { value: Float64Array }).value)).toEqual([285.625, 285.875, 286.125, 286.375, 286.625, 286.875]);
      const calendar = (f.get('time') as unknown as { attrs: Record<string, { value: string }> }).attrs.calendar!.value;
      expect(calendar).toBe('365_day');
      const day0 = Array.from(v.value.subarray(0, 24));
      const fill = Math.fround(1e20);
      // Staten Island (40.625, -74.125) is land; (40.125, -73.125) is the Atlantic.
      expect(day0[2 * 6 + 1]).not.toBe(fill);
      expect(day0[0 * 6 + 5]).toBe(fill);
      // The same cells are sea on every day.
      const sea = day0.map((x) => x === fill);
      for (let t = 1; t < 365; t++) expect(Array.from(v.value.subarray(t * 24, (t + 1) * 24)).map((x) => x === fill)).toEqual(sea);
    } finally {
      f.close();
    }
  });
});
