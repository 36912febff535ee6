import type { Downloaded } from './download.js';

/**
 * What every publisher's module offers make fetch: the files of a selection, named and versioned
 * as the publisher's own index says, and a way to bring one of them to a local file.
 */

/** What a fetch asks for, spelled out by the caller from the service's catalog. */
export interface Selection {
  /** Each model (the publisher's folder name), the member the service offers of it, and the scenarios wanted. */
  runs: { model: string; member: string; scenarios: string[] }[];
  variables: string[];
  /** First and last year wanted (a file holding any of them is fetched). */
  years: [number, number];
  /** The region asked for (west, south, east, north; around the points for POINTS): a publisher with regional files chooses by it. */
  bbox?: [number, number, number, number];
}

/** One file of a publisher's archive, as its index names it. */
export interface ArchiveFile {
  url: string;
  /** The path below the publisher's base URL: the local copy keeps it, and so its file name. */
  path: string;
  /** Size as the publisher lists it, when it does. */
  bytes?: number;
  /** What a subset (NCSS) is expected to weigh, for DRY_RUN's plan, when the publisher lists no size. */
  estimatedBytes?: number;
  /** The publisher's md5 checksum, when it gives one. */
  md5?: string;
  /** The version the name or folder states ('v1.0' for a NEX-GDDP-CMIP6 name without a suffix). */
  version: string;
  model: string;
  scenario: string;
  member: string;
  variable: string;
  years: [number, number];
}

export interface Publisher {
  dataset: string;
  /** The files of the selection, the newest version of each. Errors name the index that failed. */
  list(selection: Selection, log: (line: string) => void): Promise<ArchiveFile[]>;
  /** Brings one file to `dir/<file.path>`, whole and checked. */
  fetch(file: ArchiveFile, dir: string): Promise<Downloaded>;
}
