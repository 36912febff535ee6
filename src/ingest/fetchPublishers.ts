import type { DownloadEngine } from './archive/download.js';
import { Loca2Folders } from './archive/loca2.js';
import { LOCA, NasanexIndex, NEX_GDDP } from './archive/nasanex.js';
import { boxOf, NexGddpCmip6Ncss } from './archive/ncss.js';
import { NexGddpCmip6S3 } from './archive/nexGddpCmip6.js';
import type { Publisher } from './archive/publisher.js';
import type { DatasetFixture } from '../reference/fixtures.js';
import type { Bbox } from './netcdf/cellSelection.js';
import { IngestError } from './netcdf/ingest.js';

/** Each dataset's publisher base URL (src/config.ts: ARCHIVE_URL_*). */
export interface ArchiveUrls {
  'NEX-GDDP-CMIP6'?: string;
  'NEX-GDDP'?: string;
  LOCA?: string;
  LOCA2?: string;
}

const SETTINGS: Record<string, string> = {
  'NEX-GDDP-CMIP6': 'ARCHIVE_URL_NEX_GDDP_CMIP6',
  'NEX-GDDP': 'ARCHIVE_URL_NEX_GDDP',
  LOCA: 'ARCHIVE_URL_LOCA',
  LOCA2: 'ARCHIVE_URL_LOCA2',
};

/** The base URL of a dataset's publisher; an error naming the setting when it is not given. */
export function archiveUrlOf(dataset: string, urls: ArchiveUrls): string {
  const url = urls[dataset as keyof ArchiveUrls];
  if (!url) throw new IngestError(`${SETTINGS[dataset] ?? 'ARCHIVE_URL_*'} is not set: make fetch needs the address of ${dataset}'s archive`);
  return url;
}

/** How to fetch: whole files (s3, the default) or, for NEX-GDDP-CMIP6, NCSS subsets over the box or around the points. */
export interface FetchWay {
  via?: 's3' | 'ncss';
  ncssUrl?: string;
  bbox?: Bbox;
  points?: { lat: number; lon: number }[];
}

/** The module that lists and fetches a dataset's files from its publisher (make fetch, and a queued fetch's map task). */
export function publisherFor(fixture: DatasetFixture, urls: ArchiveUrls, engine: DownloadEngine, way: FetchWay = {}): Publisher {
  const url = archiveUrlOf(fixture.name, urls);
  if (way.via === 'ncss') {
    if (fixture.name !== 'NEX-GDDP-CMIP6') throw new IngestError(`VIA=ncss fetches NEX-GDDP-CMIP6 only (NASA's THREDDS serves its subsets); fetch ${fixture.name} without VIA`);
    if (!way.ncssUrl) throw new IngestError('VIA=ncss needs NCSS_URL_NEX_GDDP_CMIP6');
    const calendars = new Map(fixture.runs.map((r) => [r.model, r.calendar]));
    return new NexGddpCmip6Ncss(url, way.ncssUrl, engine, boxOf(way.bbox, way.points ?? []), (m) => calendars.get(m) ?? 'standard');
  }
  switch (fixture.name) {
    case 'NEX-GDDP-CMIP6':
      return new NexGddpCmip6S3(url, engine);
    case 'NEX-GDDP':
      return new NasanexIndex(NEX_GDDP, url, engine, fixture.years);
    case 'LOCA':
      return new NasanexIndex(LOCA, url, engine, fixture.years);
    case 'LOCA2':
      return new Loca2Folders(url, engine, fixture.years);
    default:
      throw new IngestError(`make fetch does not fetch ${fixture.name}: download its files and run make ingest DATASET=${fixture.name} SRC=<folder>`);
  }
}
