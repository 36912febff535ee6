import path from 'node:path';
import { z } from 'zod';
import { noteGaps } from './coverage.js';
import { download, type DownloadEngine, type Downloaded } from './download.js';
import { fetchText } from './fetchText.js';
import { FetchError } from './fetchError.js';
import { headSizes } from './headSizes.js';
import type { ArchiveFile, Publisher, Selection } from './publisher.js';
import { newestVersions } from './versions.js';

/**
 * NEX-GDDP and LOCA (CMIP5) in NASA's `nasanex` bucket (../shared/reference/archive-access.md
 * sections 3 and 4), each found through the bucket's JSON index: an object from each file's web
 * link (or key) to its model, variable, experiment_id and (NEX-GDDP) year or (LOCA) resolution tag.
 * The files fetched are the index's entries, never names built from a template; the newest version
 * (NEX-GDDP's `v1.0/` folder, LOCA's `LOCA_2016-04-02` stamp) of each (model, scenario, variable,
 * year) is taken. Neither index gives sizes or checksums: sizes come from HEAD, and every download
 * is checked as NetCDF.
 */
interface Layout {
  dataset: 'NEX-GDDP' | 'LOCA';
  setting: string;
  index: string;
  /** Member, version and years from the key the index lists; undefined for a key of another shape. */
  parse(key: string, entry: IndexEntry): { member: string; version: string; years: [number, number] } | undefined;
}

const entrySchema = z
  .object({ model: z.string(), variable: z.string(), experiment_id: z.string(), year: z.union([z.number(), z.string()]).optional(), rtag: z.string().optional() })
  .passthrough();
type IndexEntry = z.infer<typeof entrySchema>;

// NEX-GDDP/BCSD/rcp85/day/atmos/tasmax/r1i1p1/v1.0/tasmax_day_BCSD_rcp85_r1i1p1_ACCESS1-0_2052.nc
const NEX_KEY = /^NEX-GDDP\/BCSD\/[^/]+\/day\/atmos\/[^/]+\/(r\d+i\d+p\d+)\/(v\d+(?:\.\d+)*)\/[^/]+\.nc$/;
// LOCA/ACCESS1-0/16th/rcp85/r1i1p1/tasmax/tasmax_day_ACCESS1-0_rcp85_r1i1p1_20520101-20521231.LOCA_2016-04-02.16th.nc
const LOCA_KEY = /^LOCA\/[^/]+\/[^/]+\/[^/]+\/(r\d+i\d+p\d+)\/[^/]+\/[^/]+_(\d{4})\d{4}-(\d{4})\d{4}\.(LOCA_[\d-]+)\.[^/.]+\.nc$/;

export const NEX_GDDP: Layout = {
  dataset: 'NEX-GDDP',
  setting: 'ARCHIVE_URL_NEX_GDDP',
  index: 'NEX-GDDP/nex-gddp-s3-files.json',
  parse(key, entry) {
    const m = NEX_KEY.exec(key);
    const year = Number(entry.year);
    return m && Number.isInteger(year) ? { member: m[1]!, version: m[2]!, years: [year, year] } : undefined;
  },
};

export const LOCA: Layout = {
  dataset: 'LOCA',
  setting: 'ARCHIVE_URL_LOCA',
  index: 'LOCA/loca-s3-files.json',
  parse(key, entry) {
    // The index also lists LOCA's 1-degree copies (rtag 1x1); the service's grid is the 1/16 degree one.
    if (entry.rtag !== undefined && entry.rtag !== '16th') return undefined;
    const m = LOCA_KEY.exec(key);
    return m ? { member: m[1]!, version: m[4]!, years: [Number(m[2]), Number(m[3])] } : undefined;
  },
};

/** The bucket key of an index entry: its web link's path (a path-style link names the bucket first), or the key itself. */
function keyOf(link: string): string {
  let key = link;
  if (/^https?:\/\//i.test(link)) key = decodeURIComponent(new URL(link).pathname);
  else if (/^s3:\/\//i.test(link)) key = link.replace(/^s3:\/\/[^/]+/i, '');
  return key.replace(/^\/+/, '').replace(/^nasanex\//, '');
}

export class NasanexIndex implements Publisher {
  readonly dataset: string;

  constructor(
    private readonly layout: Layout,
    private readonly baseUrl: string,
    private readonly engine: DownloadEngine,
    /** The years of each scenario in the service's catalogue (for the notes on what the index lacks). */
    private readonly spans: Record<string, [number, number]>,
  ) {
    this.dataset = layout.dataset;
  }

  async list(selection: Selection, log: (line: string) => void): Promise<ArchiveFile[]> {
    const base = this.baseUrl.replace(/\/+$/, '');
    const indexUrl = `${base}/${this.layout.index}`;
    let index: Record<string, unknown>;
    try {
      index = z.record(z.string(), z.unknown()).parse(JSON.parse((await fetchText(indexUrl, this.engine))!));
    } catch (err) {
      if (err instanceof FetchError) throw err;
      throw new FetchError(`GET ${indexUrl} did not answer the ${this.layout.dataset} JSON index (an object from each file to its model, variable and experiment_id): is ${this.layout.setting} the nasanex bucket's address?`);
    }
    const runs = new Map(selection.runs.flatMap((r) => r.scenarios.map((s) => [`${r.model.toLowerCase()}|${s.toLowerCase()}`, { model: r.model, scenario: s }] as const)));
    const [y0, y1] = selection.years;
    const candidates: ArchiveFile[] = [];
    let unreadable = 0;
    for (const [link, value] of Object.entries(index)) {
      const entry = entrySchema.safeParse(value);
      if (!entry.success) {
        unreadable++;
        continue;
      }
      const run = runs.get(`${entry.data.model.toLowerCase()}|${entry.data.experiment_id.toLowerCase()}`);
      const variable = entry.data.variable.toLowerCase();
      if (!run || !selection.variables.includes(variable)) continue;
      const key = keyOf(link);
      const parsed = this.layout.parse(key, entry.data);
      if (!parsed || parsed.years[1] < y0 || parsed.years[0] > y1) continue;
      candidates.push({ url: `${base}/${key.split('/').map(encodeURIComponent).join('/')}`, path: key, ...run, variable, ...parsed });
    }
    if (unreadable > 0) log(`note: ${unreadable} entries of ${indexUrl} lack a model, variable or experiment_id: left out`);
    const chosen = newestVersions(candidates);
    noteGaps(this.layout.dataset, selection, chosen, this.spans, log);
    await headSizes(chosen, this.engine, log);
    return chosen;
  }

  fetch(file: ArchiveFile, dir: string): Promise<Downloaded> {
    return download(file.url, path.join(dir, file.path), file.bytes !== undefined ? { bytes: file.bytes } : {}, this.engine);
  }
}
