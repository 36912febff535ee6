import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { ArchiveFile } from './archive/publisher.js';
import { IngestError } from './netcdf/ingestError.js';

/**
 * The build's record of where its fetched values came from, DATA_DIR/fetched/<dataset>.json: per
 * publisher file its URL, path, bytes, md5, version, and the regions its values were ingested for.
 * A fetch reads it to leave out what the build already holds (heldByBuild.ts) and merges what it
 * fetched into it before the build is published.
 */

const bboxSchema = z.tuple([z.number(), z.number(), z.number(), z.number()]);
const pointSchema = z.object({ lat: z.number(), lon: z.number() });

/**
 * What a fetch asked of a file: its BBOX and POINTS, and whether the catalogue's cities came with it
 * (a whole file holds them wherever they are; an NCSS subset holds the box only).
 */
export const fetchedRegionSchema = z.object({
  bbox: bboxSchema.optional(),
  points: z.array(pointSchema).optional(),
  cities: z.boolean(),
});
export type FetchedRegion = z.infer<typeof fetchedRegionSchema>;

const fetchedFileSchema = z.object({
  url: z.string(),
  path: z.string(),
  bytes: z.number().nullable(),
  md5: z.string().nullable(),
  /** Whether that md5 was checked against the publisher's index. */
  md5_checked: z.boolean(),
  version: z.string(),
  model: z.string(),
  scenario: z.string(),
  variable: z.string(),
  years: z.tuple([z.number(), z.number()]),
  /** An NCSS subset: its bytes and md5 are the subset's, not the publisher's file's. */
  subset: z.boolean().optional(),
  /** The regions whose cells hold this file's values (absent in records written before they were recorded: nothing is known held). */
  regions: z.array(fetchedRegionSchema).optional(),
});
export type FetchedFile = z.infer<typeof fetchedFileSchema>;

const fetchRecordSchema = z.object({
  dataset: z.string(),
  archive: z.string(),
  updated: z.string(),
  /** Download rate of the last fetch that downloaded anything (MB/s): the next DRY_RUN's assumption. */
  measured_mb_per_s: z.number().nullable(),
  files: z.array(fetchedFileSchema),
});
export type FetchRecord = z.infer<typeof fetchRecordSchema>;

export const recordFile = (dataDir: string, dataset: string) => path.join(dataDir, 'fetched', `${dataset}.json`);

/** The build's record, or undefined when no fetch wrote one; a record that does not parse is an error naming the file. */
export function readFetchRecord(dataDir: string, dataset: string): FetchRecord | undefined {
  const file = recordFile(dataDir, dataset);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new IngestError(`${file} is not JSON (${(err as Error).message}): restore it from the build it came with, or move it away and fetch with FORCE=1`);
  }
  const parsed = fetchRecordSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new IngestError(`${file} is not a fetch record (${issue.path.join('.')}: ${issue.message}): restore it from the build it came with, or move it away and fetch with FORCE=1`);
  }
  return parsed.data;
}

/**
 * Why the publisher's file is no longer the one the record names at the same path (its md5 or its
 * size changed: replaced in place), or undefined when nothing says so. Whatever cannot be compared
 * (no md5 published, a subset's bytes) is not held against it.
 */
export function changedAtPublisher(f: Pick<ArchiveFile, 'path' | 'version' | 'bytes' | 'md5'>, r: FetchedFile): string | undefined {
  if (f.version !== r.version) return `its version is ${f.version}, the build's ${r.version}`;
  if (f.md5 !== undefined && r.md5_checked && r.md5 !== null && f.md5.toLowerCase() !== r.md5) return `its md5 at the publisher is ${f.md5.toLowerCase()}, the build's ${r.md5}`;
  if (f.bytes !== undefined && !r.subset && r.bytes !== null && f.bytes !== r.bytes) return `it is ${f.bytes.toLocaleString('en-US')} bytes at the publisher, the build's ${r.bytes.toLocaleString('en-US')}`;
  return undefined;
}

/** One file's series: a newer version of it replaces the record's older one. */
export const seriesOf = (f: Pick<FetchedFile, 'model' | 'scenario' | 'variable' | 'years'>) => `${f.model}|${f.scenario}|${f.variable}|${f.years.join('-')}`;

/**
 * Merges what this fetch did into the build's record: per file its URL, bytes, md5 and version, and
 * the region it was ingested for added to the regions the same file (path, version, md5) was
 * ingested for before. A file of another version, or changed at the publisher, replaces the
 * record's entry for its series and its regions. Written beside and renamed (a queued fetch writes
 * it into the job's new build before publishing it, so it replaces the served build's link only).
 */
export function writeFetchRecord(
  dataDir: string,
  dataset: string,
  archive: string,
  files: ArchiveFile[],
  done: Map<string, { bytes: number; md5: string; checked: boolean }>,
  rate: number | undefined,
  region: FetchedRegion,
  subset: boolean,
) {
  const had = readFetchRecord(dataDir, dataset);
  const byPath = new Map((had?.files ?? []).map((f) => [f.path, f]));
  const key = (r: FetchedRegion) => JSON.stringify([r.bbox ?? null, r.points ?? null, r.cities]);
  for (const f of files) {
    const before = byPath.get(f.path);
    const kept = before && changedAtPublisher(f, before) === undefined ? (before.regions ?? []) : [];
    // Another version of the same series leaves the record: its values are overwritten by this one's.
    for (const [p, r] of byPath) if (p !== f.path && seriesOf(r) === seriesOf(f)) byPath.delete(p);
    const d = done.get(f.url);
    const regions = new Map([...kept, region].map((r) => [key(r), r]));
    byPath.set(f.path, {
      url: f.url,
      path: f.path,
      bytes: d?.bytes ?? f.bytes ?? null,
      md5: d?.md5 ?? f.md5 ?? null,
      md5_checked: d ? d.checked : f.md5 !== undefined,
      version: f.version,
      model: f.model,
      scenario: f.scenario,
      variable: f.variable,
      years: f.years,
      ...(subset ? { subset: true } : {}),
      regions: [...regions.values()],
    });
  }
  const record: FetchRecord = {
    dataset,
    archive,
    updated: new Date().toISOString(),
    measured_mb_per_s: rate ?? had?.measured_mb_per_s ?? null,
    files: [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : 1)),
  };
  const file = recordFile(dataDir, dataset);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.tmp-${process.pid}`, JSON.stringify(record, null, 2) + '\n');
  fs.renameSync(`${file}.tmp-${process.pid}`, file);
}
