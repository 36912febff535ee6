import path from 'node:path';
import { noteGaps } from './coverage.js';
import { download, type DownloadEngine, type Downloaded } from './download.js';
import { FetchError } from './fetchError.js';
import { readFolder } from './folderPages.js';
import { headSizes } from './headSizes.js';
import { splitRegionFor, type Box } from './loca2Regions.js';
import type { ArchiveFile, Publisher, Selection } from './publisher.js';
import { newestVersions } from './versions.js';

/**
 * LOCA2 on Scripps's web server (../shared/reference/archive-access.md section 4, cmip6.md 2.2),
 * found by crawling its folder pages, as there is no manifest:
 * `NAmer/{model}/0p0625deg/{member}/{scenario}/{var}/{var}.{model}.{scenario}.{member}.{period}.LOCA_16thdeg_{ver}.nc`
 * and the same cut by NCEI climate region under `CONUS_regions_split/{model}/{region}/0p0625deg/...{ver}.{region}.nc`.
 * One file holds a period (1950-2014, 2015-2044, 2045-2074, 2075-2100); of a file's versions
 * (pr v20220519 and its revision v20240915) the newest is taken; the monthly and yearly aggregates
 * beside the daily files are not. A model's split folder is used when its region covers the box (a
 * smaller download), else NAmer. No checksums are published: sizes come from HEAD, and each
 * download is checked as NetCDF.
 */
const NAME = /^([A-Za-z]+)\.([^.]+)\.(historical|ssp\d{3})\.(r\d+i\d+p\d+f\d+)\.(\d{4})-(\d{4})\.LOCA_16thdeg_(v\d{8})((?:\.[A-Za-z_]+)*)\.nc$/;

export class Loca2Folders implements Publisher {
  readonly dataset = 'LOCA2';

  constructor(
    private readonly baseUrl: string,
    private readonly engine: DownloadEngine,
    private readonly spans: Record<string, [number, number]>,
  ) {}

  async list(selection: Selection, log: (line: string) => void): Promise<ArchiveFile[]> {
    const base = this.baseUrl.replace(/\/+$/, '');
    const found: ArchiveFile[] = [];
    for (const run of selection.runs) {
      const region = selection.bbox ? await this.regionOf(base, run.model, selection.bbox, log) : undefined;
      let files = region ? await this.crawl(base, `CONUS_regions_split/${run.model}/${region}`, region, run, selection) : undefined;
      if (region && files === undefined) log(`note: LOCA2 ${run.model}: CONUS_regions_split/${run.model}/${region}/ has nothing of the selection for member ${run.member}: fetching NAmer/ instead`);
      // A model the archive has no folder of is left out (and noted with the other gaps).
      files ??= (await this.crawl(base, `NAmer/${run.model}`, undefined, run, selection)) ?? [];
      found.push(...files);
    }
    const chosen = newestVersions(found);
    noteGaps('LOCA2', selection, chosen, this.spans, log);
    await headSizes(chosen, this.engine, log);
    return chosen;
  }

  /** The CONUS_regions_split region of a model that covers the box, if its folder is listed; says which and why. */
  private async regionOf(base: string, model: string, box: Box, log: (line: string) => void): Promise<string | undefined> {
    const listed = (await readFolder(`${base}/CONUS_regions_split/${encodeURIComponent(model)}/`, this.engine)) ?? [];
    const choice = splitRegionFor(box, listed.filter((e) => e.folder).map((e) => e.name));
    log(`LOCA2 ${model}: ${'region' in choice ? `CONUS_regions_split/${choice.region}/ (its region covers the box)` : `NAmer/ (${listed.length === 0 ? 'no CONUS_regions_split folder for the model' : choice.reason})`}`);
    return 'region' in choice ? choice.region : undefined;
  }

  /** The daily files of a run below `root` (a model's NAmer or split-region folder); undefined when there is no such folder (or, in a split, nothing of the selection). */
  private async crawl(base: string, root: string, region: string | undefined, run: Selection['runs'][number], selection: Selection): Promise<ArchiveFile[] | undefined> {
    const url = (...parts: string[]) => `${base}/${[...root.split('/'), ...parts].map(encodeURIComponent).join('/')}/`;
    const members = await readFolder(url('0p0625deg'), this.engine);
    if (members === undefined) return undefined;
    if (!members.some((e) => e.folder && e.name === run.member)) {
      const there = members.filter((e) => e.folder).map((e) => e.name);
      if (region) return undefined;
      throw new FetchError(`the LOCA2 archive lists ${run.model} under member ${there.join(', ') || '(none)'} (${url('0p0625deg')}), but the service offers ${run.model} as member ${run.member}; leave the model out (MODELS).`);
    }
    const scenarios = new Set(((await readFolder(url('0p0625deg', run.member), this.engine)) ?? []).filter((e) => e.folder).map((e) => e.name));
    const out: ArchiveFile[] = [];
    const [y0, y1] = selection.years;
    for (const scenario of run.scenarios.filter((s) => scenarios.has(s))) {
      const variables = new Set(((await readFolder(url('0p0625deg', run.member, scenario), this.engine)) ?? []).filter((e) => e.folder).map((e) => e.name));
      for (const variable of selection.variables.filter((v) => variables.has(v))) {
        const folder = url('0p0625deg', run.member, scenario, variable);
        for (const entry of (await readFolder(folder, this.engine)) ?? []) {
          const m = NAME.exec(entry.name);
          if (entry.folder || !m || m[1] !== variable || m[2] !== run.model || m[3] !== scenario || m[4] !== run.member) continue;
          const tail = m[8]!.split('.').filter((s) => s !== '');
          // Monthly and yearly aggregates sit beside the daily files; a split folder's files name their region.
          if (tail.some((s) => s === 'monthly' || s === 'yearly') || tail.join('.') !== (region ?? '')) continue;
          const years: [number, number] = [Number(m[5]), Number(m[6])];
          if (years[1] < y0 || years[0] > y1) continue;
          const key = `${root}/0p0625deg/${run.member}/${scenario}/${variable}/${entry.name}`;
          out.push({ url: `${folder}${encodeURIComponent(entry.name)}`, path: key, version: m[7]!, model: run.model, scenario, member: run.member, variable, years });
        }
      }
    }
    return out.length === 0 && region ? undefined : out;
  }

  fetch(file: ArchiveFile, dir: string): Promise<Downloaded> {
    return download(file.url, path.join(dir, file.path), file.bytes !== undefined ? { bytes: file.bytes } : {}, this.engine);
  }
}
