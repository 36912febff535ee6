import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { openDuckDB, readRows } from '../src/db/duckdb.js';
import { cellClimate, writeSyntheticCell } from '../src/ingest/synthetic.js';
import { Coastline, containsPoint } from '../src/ingest/geometry.js';
import { readLand } from '../src/ingest/sources.js';
import { cellAt, cellCentre, GRIDS } from '../src/reference/grids.js';

let conn: DuckDBConnection;
let dir: string;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'build-test-'));
const q = <T = Record<string, unknown>>(sql: string, params?: Record<string, unknown>) => readRows<T>(conn, sql, params as never);
const one = async <T,>(sql: string, params?: Record<string, unknown>) => (await q<T>(sql, params))[0]!;
const file = (name: string) => path.join(dir, 'catalog', `${name}.parquet`);

beforeAll(async () => {
  dir = inject('dataDir');
  conn = await (await openDuckDB({ threads: 2, memoryLimit: '1GB' })).connect();
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('reference catalog of the data build', () => {
  it('has the US cities >= 10,000 without city sections, keyed by GeoNames id', async () => {
    const { n, min_pop } = await one<{ n: number; min_pop: number }>(`SELECT count(*)::INT n, min(population) min_pop FROM '${file('city')}'`);
    expect(n).toBeGreaterThan(4300);
    expect(n).toBeLessThan(4400);
    expect(min_pop).toBeGreaterThanOrEqual(10_000);
    const nyc = await q(`SELECT name, admin FROM '${file('city')}' WHERE id = 5128581`);
    expect(nyc).toEqual([{ name: 'New York City', admin: 'NY' }]);
    // PPLX records (city sections) are left out, e.g. Harlem.
    expect(await q(`SELECT * FROM '${file('city')}' WHERE name = 'Harlem'`)).toEqual([]);
    const { dups } = await one<{ dups: number }>(`SELECT count(*)::INT dups FROM (SELECT name, admin FROM '${file('city')}' GROUP BY ALL HAVING count(*) > 1)`);
    expect(dups).toBe(0);
  });

  it('assigns ecoregions by containment (the data README spot checks)', async () => {
    const checks: [string, string, string | null][] = [
      ['Seattle', 'WA', '7.1'], ['Phoenix', 'AZ', '10.2'], ['Denver', 'CO', '9.4'], ['Atlanta', 'GA', '8.3'],
      ['Miami', 'FL', '15.4'], ['Los Angeles', 'CA', '11.1'], ['Chicago', 'IL', '8.2'], ['Boston', 'MA', '8.1'], ['Honolulu', 'HI', null],
    ];
    for (const [name, admin, code] of checks) {
      const rows = await q<{ code: string | null }>(
        `SELECT r.level1 || '.' || r.level2 AS code FROM '${file('city')}' c LEFT JOIN '${file('region')}' r ON r.id = c.region_id WHERE c.name = $name AND c.admin = $admin`,
        { name, admin },
      );
      expect(rows, `${name}`).toEqual([{ code }]);
    }
    const { n } = await one<{ n: number }>(`SELECT count(*)::INT n FROM '${file('region')}'`);
    expect(n).toBe(50);
  });

  it('joins Census boundaries to cities and keeps them valid GeoJSON MultiPolygons holding the city', async () => {
    const rows = await q<{ geometry: string; boundary_type: string; lon: number; lat: number }>(
      `SELECT b.geometry, b.boundary_type, c.lon, c.lat FROM '${file('city_boundary')}' b JOIN '${file('city')}' c ON c.id = b.city_id WHERE c.id IN (5128581, 4887398)`,
    );
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      const g = JSON.parse(r.geometry);
      expect(g.type).toBe('MultiPolygon');
      expect(containsPoint(g.coordinates, r.lon, r.lat)).toBe(true);
      expect(r.boundary_type).toBe('Incorporated Places');
    }
  });

  it('flags proximity to the ocean, with the Great Lakes counting as land', async () => {
    const flags = async (name: string, admin: string) =>
      (await q<{ ocean: boolean; coastal: boolean }>(`SELECT ocean, coastal FROM '${file('city')}' WHERE name = $name AND admin = $admin`, { name, admin }))[0];
    expect(await flags('New York City', 'NY')).toEqual({ ocean: true, coastal: true });
    expect(await flags('Miami', 'FL')).toEqual({ ocean: true, coastal: true });
    expect(await flags('Denver', 'CO')).toEqual({ ocean: false, coastal: false });
    expect(await flags('Chicago', 'IL')).toEqual({ ocean: false, coastal: false });
    const coast = new Coastline(readLand());
    expect(coast.onLand(-98, 39)).toBe(true); // Kansas
    expect(coast.onLand(-87, 44)).toBe(true); // Lake Michigan is land in this layer
    expect(coast.onLand(-60, 35)).toBe(false); // Atlantic
    expect(coast.distanceKm(-98, 39, 50)).toBe(Infinity);
  });

  it('maps each city to the grid cell containing it, per dataset', async () => {
    const rows = await q<{ dataset: string; cell_id: number; lat: number; lon: number; clat: number; clon: number; admin: string }>(
      `SELECT cc.dataset, cc.cell_id, m.lat, m.lon, c.lat AS clat, c.lon AS clon, c.admin
       FROM '${file('city_cell')}' cc JOIN '${file('city')}' c ON c.id = cc.city_id
       JOIN '${file('map_cell')}' m USING (dataset, cell_id) USING SAMPLE 200 ROWS`,
    );
    for (const r of rows) {
      const grid = GRIDS[r.dataset]!;
      expect(cellAt(grid, r.clat, r.clon)).toBe(r.cell_id);
      expect(cellCentre(grid, r.cell_id)).toEqual({ lat: r.lat, lon: r.lon });
      expect(Math.abs(r.clat - r.lat)).toBeLessThanOrEqual(grid.size / 2);
    }
    const { loca_outside } = await one<{ loca_outside: number }>(
      `SELECT count(*)::INT loca_outside FROM '${file('city_cell')}' cc JOIN '${file('city')}' c ON c.id = cc.city_id WHERE cc.dataset = 'LOCA' AND c.admin IN ('AK', 'HI', 'PR')`,
    );
    expect(loca_outside).toBe(0);
  });

  it('writes a manifest describing the build', () => {
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    expect(m).toMatchObject({ synthetic: true, climate_cities: 3, seed: 7 });
    expect(m.build_id).toMatch(/^[0-9a-f]{16}$/);
    expect(m.datasets['NEX-GDDP']).toEqual({ cells_with_data: 3, models: 3 });
    expect(m.years.RCP85).toEqual([2050, 2052]);
  });
});

describe('synthetic climate files', () => {
  const nexFiles = () => fs.readdirSync(path.join(dir, 'climate', 'NEX-GDDP', 'RCP85')).map((f) => path.join(dir, 'climate', 'NEX-GDDP', 'RCP85', f));

  it('has one file per (dataset, scenario, cell with data), sorted by model then date', async () => {
    expect(nexFiles()).toHaveLength(3);
    for (const f of nexFiles()) {
      const { unsorted } = await one<{ unsorted: number }>(
        `SELECT count(*)::INT unsorted FROM (
           SELECT model, date, lag(model) OVER w pm, lag(date) OVER w pd
           FROM read_parquet('${f}', file_row_number = true) WINDOW w AS (ORDER BY file_row_number))
         WHERE pm IS NOT NULL AND (model, date) <= (pm, pd)`,
      );
      expect(unsorted).toBe(0);
      const cols = await q<{ column_name: string; column_type: string }>(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '${f}')`);
      expect(cols).toEqual([
        { column_name: 'model', column_type: 'VARCHAR' },
        { column_name: 'date', column_type: 'DATE' },
        { column_name: 'tasmax', column_type: 'FLOAT' },
        { column_name: 'tasmin', column_type: 'FLOAT' },
        { column_name: 'pr', column_type: 'FLOAT' },
      ]);
    }
  });

  it('keeps tasmin below tasmax, pr non-negative with dry days, and plausible magnitudes', async () => {
    const [r] = await q<{ bad: number; neg: number; dry: number; tx: number }>(
      `SELECT count(*) FILTER (WHERE tasmin >= tasmax)::INT bad, count(*) FILTER (WHERE pr < 0)::INT neg,
              avg((pr = 0)::INT) dry, avg(tasmax) tx FROM '${dir}/climate/*/*/*.parquet'`,
    );
    expect(r!.bad).toBe(0);
    expect(r!.neg).toBe(0);
    expect(r!.dry).toBeGreaterThan(0.4);
    expect(r!.dry).toBeLessThan(0.95);
    expect(r!.tx).toBeGreaterThan(280);
    expect(r!.tx).toBeLessThan(305);
  });

  it('leaves out Feb 29 for 365-day models only', async () => {
    const rows = await q<{ model: string; feb29: number }>(
      `SELECT model, count(*) FILTER (WHERE month(date) = 2 AND day(date) = 29)::INT feb29 FROM '${nexFiles()[0]}' GROUP BY 1 ORDER BY 1`,
    );
    expect(rows).toEqual([
      { model: 'ACCESS1-0', feb29: 1 },
      { model: 'CCSM4', feb29: 0 },
      { model: 'MIROC5', feb29: 1 },
    ]);
  });

  async function generate(name: string, lat: number, lon: number, coastKm: number, scenario: string, years: [number, number], seed = 1) {
    const outFile = path.join(tmp, `${name}.parquet`);
    const models = ['ACCESS1-0', 'CCSM4', 'MIROC5', 'inmcm4'];
    await writeSyntheticCell(conn, { seed, cellId: 1, scenario, years, models, climate: cellClimate(lat, lon, coastKm), outFile });
    return outFile;
  }

  it('is deterministic for a seed and differs between seeds', async () => {
    const a = await generate('a', 40, -75, 10, 'RCP45', [2040, 2041]);
    const b = await generate('b', 40, -75, 10, 'RCP45', [2040, 2041]);
    const c = await generate('c', 40, -75, 10, 'RCP45', [2040, 2041], 2);
    const { diff } = await one<{ diff: number }>(`SELECT count(*)::INT diff FROM (SELECT * FROM '${a}' EXCEPT ALL SELECT * FROM '${b}')`);
    expect(diff).toBe(0);
    const { diff2 } = await one<{ diff2: number }>(`SELECT count(*)::INT diff2 FROM (SELECT * FROM '${a}' EXCEPT ALL SELECT * FROM '${c}')`);
    expect(diff2).toBeGreaterThan(1000);
  });

  it('warms more under RCP85 than RCP45 late in the century, for every model', async () => {
    const r45 = await generate('r45', 40, -90, 900, 'RCP45', [2090, 2100]);
    const r85 = await generate('r85', 40, -90, 900, 'RCP85', [2090, 2100]);
    const rows = await q<{ model: string; d: number }>(
      `SELECT a.model, b.t - a.t AS d FROM (SELECT model, avg(tasmax) t FROM '${r45}' GROUP BY 1) a JOIN (SELECT model, avg(tasmax) t FROM '${r85}' GROUP BY 1) b USING (model)`,
    );
    expect(rows).toHaveLength(4);
    for (const r of rows) expect(r.d).toBeGreaterThan(1.0);
  });

  it('has a seasonal cycle larger inland than on the coast, and persistence from day to day', async () => {
    const inland = await generate('inland', 45, -93, 1500, 'historical', [1990, 1999]);
    const sf = await generate('sf', 37.75, -122.4, 5, 'historical', [1990, 1999]);
    const amp = async (f: string) =>
      (await q<{ a: number }>(`SELECT max(t) - min(t) AS a FROM (SELECT month(date) m, avg(tasmax) t FROM '${f}' GROUP BY 1)`))[0]!.a;
    expect(await amp(inland)).toBeGreaterThan(25);
    expect(await amp(sf)).toBeLessThan(12);
    const { r } = await one<{ r: number }>(
      `SELECT corr(x, lx) r FROM (SELECT tasmax - avg(tasmax) OVER (PARTITION BY model, month(date)) x,
         lag(tasmax) OVER (PARTITION BY model ORDER BY date) - avg(tasmax) OVER (PARTITION BY model, month(date)) lx FROM '${inland}')`,
    );
    expect(r).toBeGreaterThan(0.6);
  });

  it('gives the desert Southwest far fewer wet days than the Pacific Northwest', async () => {
    const phoenix = await generate('phx', 33.45, -112.07, 250, 'historical', [1980, 1989]);
    const seattle = await generate('sea', 47.6, -122.33, 5, 'historical', [1980, 1989]);
    const wet = async (f: string) => (await q<{ w: number }>(`SELECT avg((pr > 0)::INT) * 365.25 w FROM '${f}'`))[0]!.w;
    const [p, s] = [await wet(phoenix), await wet(seattle)];
    expect(p).toBeLessThan(s / 2);
    expect(s).toBeGreaterThan(100);
  });
});
