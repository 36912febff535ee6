import { readRows } from '../db/duckdb.js';
import type { QueryPool } from '../db/queryPool.js';
import { sqlFile } from '../db/sqlFiles.js';
import type { Catalog } from './catalog.js';

/**
 * A city's boundary (GeoJSON text), read when an area or the boundary endpoint first asks for it
 * and kept per data build. The catalog holds only which cities have one: the 3,843 Census
 * boundaries are 11 MB of text, and reading them all cost every start 0.35 s of CPU.
 */
const kept = new WeakMap<Catalog, Map<number, Promise<string>>>();

export function boundaryGeometry(queries: QueryPool, catalog: Catalog, cityId: number): Promise<string> {
  let byCity = kept.get(catalog);
  if (!byCity) kept.set(catalog, (byCity = new Map()));
  let geometry = byCity.get(cityId);
  if (!geometry) {
    geometry = queries.run(async (conn) => {
      const rows = await readRows<{ geometry: string }>(conn, sqlFile('catalog/boundary_geometry.sql'), { dir: catalog.dataDir, city: cityId });
      if (rows.length !== 1) throw new Error(`The build's catalog/city_boundary.parquet holds ${rows.length} boundaries for city ${cityId}, where its list of boundaries says 1.`);
      return rows[0]!.geometry;
    });
    byCity.set(cityId, geometry);
    // A failed read (a busy pool, a timeout) is not kept: the next request reads again.
    const same = geometry;
    geometry.catch(() => byCity.get(cityId) === same && byCity.delete(cityId));
  }
  return geometry;
}
