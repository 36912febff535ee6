import { single } from '../climate/params.js';
import { areaCover, areaOfQuery, type Origin } from '../areas/area.js';
import { boxCover } from '../areas/cells.js';
import type { CoverThread } from '../areas/coverThread.js';
import type { QueryPool } from '../db/queryPool.js';
import { notFound } from '../errors.js';
import type { Catalog, Dataset } from '../reference/catalog.js';
import { cellCentre, GRIDS, type Grid } from '../reference/grids.js';

/**
 * The cells of a map: the dataset's own grid cells with data for the scenario, whole (a map shows
 * cells, so no weights and no clipping), in cell id order, which is row-major on the grid.
 */
export interface MapCellList {
  grid: Grid;
  ids: number[];
  lats: number[];
  lons: number[];
  rows: number[];
  cols: number[];
  /** Where the cells came from: the area as asked, or {} for every cell of the dataset. */
  origin: Origin;
}

const AREA_NAMES = ['region', 'city', 'bbox'] as const;

/**
 * The map's cells: those the area (region, city or bbox, as the area endpoints take them) covers,
 * or with none of them every cell of the dataset with data; `readable` says which have data for
 * the request's scenario. 404 when none has.
 */
export async function mapCellList(catalog: Catalog, queries: QueryPool, dataset: Dataset, query: Record<string, unknown>, clipper: CoverThread, readable: (cellId: number) => boolean): Promise<MapCellList> {
  const grid = GRIDS[dataset.name]!;
  // Every name is read, so that two of them are refused by areaOfQuery.
  const named = AREA_NAMES.filter((name) => single(query, name) !== undefined);
  let ids: number[];
  let origin: Origin = {};
  let covered: number;
  if (named.length === 0) {
    ids = Array.from(catalog.mapCells.ids(dataset.name));
    covered = ids.length;
  } else {
    const area = await areaOfQuery(catalog, queries, query);
    origin = area.origin;
    if ('bbox' in area.origin) {
      // A rectangle's cells by arithmetic: a map needs no areas.
      const cover = boxCover(grid, area.origin.bbox, catalog.mapCells.ids(dataset.name));
      ids = cover.ids;
      covered = cover.count;
    } else {
      const cover = await areaCover(catalog, dataset, area.shape, area.origin, clipper);
      ids = cover.cells.map((c) => c.cellId);
      covered = cover.count;
    }
  }
  ids = ids.filter(readable);
  if (ids.length === 0) {
    throw notFound(named.length === 0 ? `No ${dataset.name} data for this scenario in this build.` : `No ${dataset.name} data for this area and scenario: none of the ${covered} map cells it covers has data in this build.`);
  }
  const out: MapCellList = { grid, ids, lats: [], lons: [], rows: [], cols: [], origin };
  for (const id of ids) {
    const { lat, lon } = cellCentre(grid, id);
    out.lats.push(lat);
    out.lons.push(lon);
    out.rows.push(Math.floor(id / grid.cols));
    out.cols.push(id % grid.cols);
  }
  return out;
}
