import fs from 'node:fs';
import path from 'node:path';
import { GRIDS } from '../../reference/grids.js';
import type { Calendar } from '../../reference/fixtures.js';
import type { Bbox } from '../netcdf/cellSelection.js';
import { download, type DownloadEngine, type Downloaded, md5Of } from './download.js';
import { FetchError } from './fetchError.js';
import { NexGddpCmip6S3 } from './nexGddpCmip6.js';
import { stitchSubsets } from './ncssStitch.js';
import type { ArchiveFile, Publisher, Selection } from './publisher.js';

/**
 * NEX-GDDP-CMIP6 through NASA NCCS THREDDS's NetCDF Subset Service (../shared/reference/archive-access.md
 * section 2): the files are still those of the S3 bucket's listing (exact member, grid label, newest
 * version), but each is asked of NCSS for its variable over the box only, a few hundred KB instead
 * of a quarter GB of whole-globe days. The server answers 403 "Request Too Large" above its size
 * limit: the box is then cut in two along cell edges and the halves stitched back into one file.
 */

/** The box as NCSS is asked it: cell edges of the dataset's grid, longitudes in the files' 0..360. */
export interface NcssBox {
  west: number;
  east: number;
  south: number;
  north: number;
  rows: number;
  cols: number;
}

const GRID = GRIDS['NEX-GDDP-CMIP6']!;
const round = (x: number) => Number(x.toFixed(6));
const lon360 = (x: number) => round(((x % 360) + 360) % 360);

/** The edges of the grid cells holding any point of `bbox` (the cells the ingest targets), in 0..360. */
export function ncssBox([w, s, e, n]: Bbox): NcssBox {
  const [r0, r1] = [Math.floor((s - GRID.lat0) / GRID.size), Math.floor((n - GRID.lat0) / GRID.size)];
  const [c0, c1] = [Math.floor((w - GRID.lon0) / GRID.size), Math.floor((e - GRID.lon0) / GRID.size)];
  return {
    south: round(GRID.lat0 + r0 * GRID.size),
    north: round(GRID.lat0 + (r1 + 1) * GRID.size),
    west: lon360(GRID.lon0 + c0 * GRID.size),
    east: lon360(GRID.lon0 + (c1 + 1) * GRID.size),
    rows: r1 - r0 + 1,
    cols: c1 - c0 + 1,
  };
}

/** The box of BBOX and every POINT (their cells only are asked for when there is no BBOX). */
export function boxOf(bbox: Bbox | undefined, points: { lat: number; lon: number }[]): Bbox {
  const lats = [...(bbox ? [bbox[1], bbox[3]] : []), ...points.map((p) => p.lat)];
  const lons = [...(bbox ? [bbox[0], bbox[2]] : []), ...points.map((p) => (p.lon >= 180 ? p.lon - 360 : p.lon))];
  return [Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)];
}

/**
 * The two halves of a box, cut along a cell edge: north-south while it has two rows or more, then
 * west-east. No cell centre lies on the cut, but a server that takes in the cells whose edge lies
 * on a box's side answers the two rows beside it in both halves: the stitch keeps each once.
 */
export function splitBox(b: NcssBox): [NcssBox, NcssBox] | undefined {
  if (b.rows >= 2) {
    const mid = round(b.south + Math.floor(b.rows / 2) * GRID.size);
    const south = Math.floor(b.rows / 2);
    return [{ ...b, north: mid, rows: south }, { ...b, south: mid, rows: b.rows - south }];
  }
  if (b.cols >= 2) {
    const west = Math.floor(b.cols / 2);
    const mid = lon360(b.west + west * GRID.size);
    return [{ ...b, east: mid, cols: west }, { ...b, west: mid, cols: b.cols - west }];
  }
  return undefined;
}

/**
 * An NCSS subset request of one file: the variable, the box, and the file's year as the dataset's
 * calendar has it (a 360_day year ends on 12-30: 12-31 is no date of it, and NCSS refuses it).
 */
export function ncssUrl(base: string, key: string, variable: string, year: number, calendar: Calendar, b: NcssBox): string {
  const q = new URLSearchParams({
    var: variable,
    north: String(b.north),
    south: String(b.south),
    west: String(b.west),
    east: String(b.east),
    horizStride: '1',
    time_start: `${year}-01-01T00:00:00Z`,
    time_end: `${year}-12-${calendar === '360_day' ? 30 : 31}T23:59:59Z`,
    accept: 'netcdf4',
    addLatLon: 'true',
  });
  return `${base.replace(/\/+$/, '')}/${key.replace(/^NEX-GDDP-CMIP6\//, '').split('/').map(encodeURIComponent).join('/')}?${q}`;
}

export class NexGddpCmip6Ncss implements Publisher {
  readonly dataset = 'NEX-GDDP-CMIP6';
  private readonly listing: NexGddpCmip6S3;
  private readonly box: NcssBox;

  constructor(
    s3Url: string,
    private readonly ncssBase: string,
    private readonly engine: DownloadEngine,
    bbox: Bbox,
    private readonly calendarOf: (model: string) => Calendar,
  ) {
    // The bucket's md5 index is of whole files: a subset is checked as NetCDF, not against it.
    this.listing = new NexGddpCmip6S3(s3Url, engine, { checksums: false });
    this.box = ncssBox(bbox);
  }

  async list(selection: Selection, log: (line: string) => void): Promise<ArchiveFile[]> {
    const files = await this.listing.list(selection, log);
    const perDay = this.box.rows * this.box.cols * 4;
    return files.map(({ bytes: _whole, md5: _md5, ...f }) => ({
      ...f,
      url: ncssUrl(this.ncssBase, f.path, f.variable, f.years[0], this.calendarOf(f.model), this.box),
      estimatedBytes: perDay * (this.calendarOf(f.model) === '360_day' ? 360 : 366) + 16_384,
    }));
  }

  /** The subset of the box, cut in halves (and stitched) for as long as NCSS answers "Request Too Large". */
  async fetch(file: ArchiveFile, dir: string): Promise<Downloaded> {
    const dest = path.join(dir, 'ncss', file.path);
    if (fs.existsSync(dest)) return download(file.url, dest, {}, this.engine);
    const got = await this.subset(file, this.box, dest, 0);
    const bytes = fs.statSync(dest).size;
    return got ?? { file: dest, bytes, md5: await md5Of(dest), resumedFrom: 0, checked: false };
  }

  /** `dest` holds the subset of `b`; returns the download when one request sufficed (undefined when stitched). */
  private async subset(file: ArchiveFile, b: NcssBox, dest: string, depth: number): Promise<Downloaded | undefined> {
    const url = ncssUrl(this.ncssBase, file.path, file.variable, file.years[0], this.calendarOf(file.model), b);
    try {
      return await download(url, dest, {}, this.engine);
    } catch (err) {
      if (!(err instanceof FetchError) || err.status === undefined) throw err;
      const body = (err.body ?? '').trim().slice(0, 300);
      if (err.status === 403 && /request too large/i.test(body)) {
        const halves = splitBox(b);
        if (!halves) throw new FetchError(`NCSS answered "Request Too Large" even for one grid cell of ${file.path} (${url}): ${body}. Fetch whole files instead (VIA=s3).`, 403, body);
        this.engine.policy.log(`${path.basename(file.path)}: NCSS answered "Request Too Large" for ${b.rows} x ${b.cols} cells; asking for two halves of ${halves[0].rows} x ${halves[0].cols} and ${halves[1].rows} x ${halves[1].cols}`);
        const parts = [`${dest}.${depth}a`, `${dest}.${depth}b`];
        await this.subset(file, halves[0], parts[0]!, depth + 1);
        await this.subset(file, halves[1], parts[1]!, depth + 1);
        await stitchSubsets(parts[0]!, parts[1]!, b.rows >= 2 ? 'lat' : 'lon', file.variable, dest);
        for (const p of parts) fs.rmSync(p, { force: true });
        return undefined;
      }
      const why =
        err.status === 404
          ? `the S3 listing names ${file.path}, but NCSS has no such dataset; fetch whole files (VIA=s3), or check NCSS_URL_NEX_GDDP_CMIP6`
          : err.status === 400
            ? 'NCSS refused the subset request; check BBOX (the box must lie on the files\' grid, 59.875 S to 89.875 N) and YEARS'
            : `NCSS answered ${err.status}`;
      throw new FetchError(`GET ${url} answered ${err.status}${body ? `: ${body}` : ''}. ${why}.`, err.status, err.body);
    }
  }
}
