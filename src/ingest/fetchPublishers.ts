import type { DownloadEngine } from '../archive/download.js';
import { Loca2Folders } from '../archive/loca2.js';
import { LOCA, NasanexIndex, NEX_GDDP } from '../archive/nasanex.js';
import { NexGddpCmip6S3 } from '../archive/nexGddpCmip6.js';
import type { Publisher } from '../archive/publisher.js';
import type { DatasetFixture } from '../reference/fixtures.js';
import { IngestError } from './netcdf/ingest.js';

/** Each dataset's publisher base URL (src/config.ts: ARCHIVE_URL_*). */
export interface ArchiveUrls {
  'NEX-GDDP-CMIP6': string;
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

/** The module that lists and fetches a dataset's files from its publisher. */
export function publisherFor(fixture: DatasetFixture, urls: ArchiveUrls, engine: DownloadEngine): Publisher {
  const url = archiveUrlOf(fixture.name, urls);
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
