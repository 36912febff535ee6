import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import h5wasm from 'h5wasm/node';
import { afterAll, describe, expect, it } from 'vitest';
import { openNetcdfThread } from '../src/export/netcdfThread.js';
import { FILL, type NetcdfHeader } from '../src/export/netcdfWriter.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netcdf-fill-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// A sparse area: a 3 x 4 rectangle of which one cell has data, two models, two variables.
const header: NetcdfHeader = {
  globals: { title: 'fill test' },
  models: ['A', 'B'],
  where: { kind: 'area', lats: [40.125, 40.375, 40.625], lons: [-74.875, -74.625, -74.375, -74.125] },
  variables: [
    { name: 'tasmax', axis: { dim: 'time', values: [0, 1, 2] }, attrs: { units: 'K' }, wide: false },
    { name: 'pr', axis: { dim: 'time', values: [0, 1, 2] }, attrs: { units: 'kg m-2 s-1' }, wide: false },
  ],
};

describe("a NetCDF area's FILL", () => {
  it('is written at close for every series without data, and close says how far the filling is, ending at 1', async () => {
    const file = path.join(dir, 'sparse.nc');
    const writer = await openNetcdfThread(file, header);
    expect(writer.positions).toBe(12);
    const position = 1 * 4 + 2;
    await writer.writeSeries(0, 1, position, Float32Array.from([280, 281, 282]));
    await writer.writeSeries(1, 1, position, Float32Array.from([0.5, 0, 1]));
    const heard: number[] = [];
    await writer.close((fraction) => heard.push(fraction));
    // At least the last report, which is the whole filling; never backwards.
    expect(heard.at(-1)).toBe(1);
    expect(heard).toEqual([...heard].sort((a, b) => a - b));

    await h5wasm.ready;
    const f = new h5wasm.File(file, 'r');
    try {
      const values = Array.from((f.get('tasmax') as InstanceType<typeof h5wasm.Dataset>).value as Float32Array);
      // (model, time, lat, lon): model B's series at (1, 2), FILL at the other 2 x 12 - 1 series.
      const at = (m: number, t: number) => values[((m * 3 + t) * 3 + 1) * 4 + 2];
      expect([0, 1, 2].map((t) => at(1, t))).toEqual([280, 281, 282]);
      expect(values.filter((v) => v === Math.fround(FILL))).toHaveLength(values.length - 3);
    } finally {
      f.close();
    }
  });
});
