import path from 'node:path';
import { expect } from 'vitest';
import fs from 'node:fs';
import { planArchive, writeArchive } from '../../scripts/archiveModel/archive.js';
import { writeFixture } from '../../scripts/archiveModel/fixtureFiles.js';
import type { Bbox } from '../../src/ingest/netcdf/cellSelection.js';
import { copyOfTestData, partitionRows } from '../ingest-support.js';
import type { FetchOptions } from '../../src/ingest/fetchRegion.js';
import { ingestNetcdf } from '../../src/ingest/netcdf/ingest.js';
import { localFetchSettings, type PublisherServer } from './publisherServer.js';

/**
 * The scale model's NEX-GDDP-CMIP6 archive the make fetch tests serve: tasmax and pr of 2052 (a
 * leap year) for a gregorian, a 365_day and a 360_day model over FILES_BOX, fetched for BOX; with
 * `reRelease`, NASA's v1.1 of ACCESS-CM2's tasmax beside the original, 8 K warmer (a fetch must
 * take it).
 */
export const FILES_BOX: Bbox = [-64.5, 44.0, -62.5, 45.5];
export const BOX: Bbox = [-63.9, 44.3, -63.15, 44.95];
export const MODELS = ['ACCESS-CM2', 'CanESM5', 'UKESM1-0-LL'];

const planned = () => planArchive({ dataset: 'NEX-GDDP-CMIP6', models: MODELS, scenarios: ['ssp245'], years: [2052, 2052], variables: ['tasmax', 'pr'], bbox: FILES_BOX });

export async function writeFetchArchive(root: string, reRelease: boolean): Promise<void> {
  await writeArchive(root, planned());
  if (reRelease) await writeReRelease(root, 'ACCESS-CM2', 'tasmax', '1.1', 8);
}

/** A re-release of a model's file of the archive beside the original, `shift` added to its values; returns its key. */
export async function writeReRelease(root: string, model: string, variable: string, version: string, shift: number): Promise<string> {
  const original = planned().find((f) => f.spec.model === model && f.spec.variable === variable)!;
  const file = await writeFixture(path.join(root, path.dirname(original.path)), { ...original.spec, version, shift });
  return path.relative(root, file).split(path.sep).join('/');
}

const ssp245 = (dir: string) => path.join(dir, 'climate', 'NEX-GDDP-CMIP6', 'ssp245');
export const partitions = (dir: string) => fs.readdirSync(ssp245(dir)).filter((f) => f.endsWith('.parquet')).sort();

/** Every NEX-GDDP-CMIP6 ssp245 partition of build `dir` holds the rows `reference` has. */
export async function expectSamePartitions(dir: string, reference: string): Promise<void> {
  expect(partitions(dir)).toEqual(partitions(reference));
  for (const p of partitions(reference)) expect(await partitionRows(path.join(ssp245(dir), p))).toEqual(await partitionRows(path.join(ssp245(reference), p)));
}

/** make fetch's options for the archive's selection (BOX, MODELS, ssp245, tasmax and pr of 2052), logging into `log`. */
export const fetchOptions = (server: PublisherServer, dataDir: string, downloadDir: string, log: string[], extra: Partial<FetchOptions> = {}): FetchOptions => ({
  dataDir,
  dataset: 'NEX-GDDP-CMIP6',
  bbox: BOX,
  models: MODELS,
  scenarios: ['ssp245'],
  variables: ['tasmax', 'pr'],
  years: [2052, 2052],
  ...localFetchSettings(server, downloadDir, log),
  ...extra,
});

/** A copy of the test build with the archive's files ingested from disk for BOX (make ingest): what a fetch must serve. */
export async function ingestedFromDisk(tmpRoot: string, archiveRoot: string): Promise<string> {
  const dir = copyOfTestData(tmpRoot, 'from-disk');
  await ingestNetcdf({ dataDir: dir, dataset: 'NEX-GDDP-CMIP6', sources: [path.join(archiveRoot, 'NEX-GDDP-CMIP6')], bbox: BOX, log: () => {} });
  return dir;
}
