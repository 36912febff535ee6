import path from 'node:path';
import { download, type DownloadEngine, type Downloaded } from './download.js';
import { fetchText } from './fetchText.js';
import { missingYearsNote, onceEach } from './coverage.js';
import { FetchError } from './fetchError.js';
import type { ArchiveFile, Publisher, Selection } from './publisher.js';
import { listObjects } from './s3Listing.js';
import { compareVersions, parseCmip6Name } from '../netcdf/cmip6Names.js';

/**
 * NEX-GDDP-CMIP6 on AWS S3 (bucket nex-gddp-cmip6, ../shared/reference/archive-access.md section 1):
 * `NEX-GDDP-CMIP6/{model}/{scenario}/{member}/{var}/{var}_day_{model}_{scenario}_{member}_{grid}_{year}[_v1.1|_v1.2|_v2.0].nc`,
 * re-released versions beside the originals; md5 checksums in `index_md5.txt` (v1.0) and
 * `index_v{version}_md5.txt`, in md5sum's format. The files are found by listing the bucket
 * (ListObjectsV2), never built from a template: member, grid label and version differ by model.
 */
const indexName = (version: string) => (version === 'v1.0' ? 'index_md5.txt' : `index_${version}_md5.txt`);

export class NexGddpCmip6S3 implements Publisher {
  readonly dataset = 'NEX-GDDP-CMIP6';

  constructor(
    private readonly baseUrl: string,
    private readonly engine: DownloadEngine,
    /** checksums: false lists the files without reading the md5 index (NCSS subsets are not the indexed files). */
    private readonly opts: { checksums?: boolean } = {},
  ) {}

  async list(selection: Selection, log: (line: string) => void): Promise<ArchiveFile[]> {
    const base = this.baseUrl.replace(/\/+$/, '');
    const chosen: ArchiveFile[] = [];
    const [y0, y1] = selection.years;
    const note = onceEach(log);
    for (const run of selection.runs) {
      for (const scenario of run.scenarios) {
        const prefix = `NEX-GDDP-CMIP6/${run.model}/${scenario}/`;
        const objects = await listObjects(base, prefix, this.engine);
        const members = new Set<string>();
        const newest = new Map<string, { file: ArchiveFile; version: number[] }>();
        for (const o of objects) {
          // NEX-GDDP-CMIP6/{model}/{scenario}/{member}/{var}/{name}: the name read as the ingest reads it.
          const folders = o.key.split('/');
          const name = folders.length === 6 ? parseCmip6Name(folders[5]!) : undefined;
          if (!name || name.layout !== 'NEX-GDDP-CMIP6' || name.scenario !== scenario) continue;
          members.add(name.member);
          const [member, variable, year] = [name.member, name.variable, name.years[0]];
          if (member !== run.member || !selection.variables.includes(variable) || year < y0 || year > y1) continue;
          const file: ArchiveFile = {
            url: `${base}/${o.key.split('/').map(encodeURIComponent).join('/')}`,
            path: o.key,
            ...(Number.isFinite(o.size) ? { bytes: o.size } : {}),
            version: name.versionLabel,
            model: run.model,
            scenario,
            member,
            variable,
            years: [year, year],
          };
          const key = `${variable}|${year}`;
          const held = newest.get(key);
          if (!held || compareVersions(name.version, held.version) > 0) newest.set(key, { file, version: name.version });
        }
        if (!members.has(run.member)) {
          throw new FetchError(
            members.size > 0
              ? `the NEX-GDDP-CMIP6 archive at ${base} lists ${run.model} ${scenario} under member ${[...members].join(', ')}, but the service offers ${run.model} as member ${run.member}; leave the model out (MODELS) or use an archive that has that member.`
              : `the NEX-GDDP-CMIP6 archive at ${base} has no files under ${prefix} (ListObjectsV2): leave ${run.model} ${scenario} out (MODELS, SCENARIOS), or check ARCHIVE_URL_NEX_GDDP_CMIP6.`,
          );
        }
        for (const variable of selection.variables) {
          const years = [...newest.values()].filter(({ file: f }) => f.variable === variable).map(({ file: f }) => f.years[0]);
          const lo = Math.max(y0, scenario === 'historical' ? 1950 : 2015);
          const hi = Math.min(y1, scenario === 'historical' ? 2014 : 2100);
          const missing = [];
          for (let y = lo; y <= hi; y++) if (!years.includes(y)) missing.push(y);
          if (missing.length > 0) note(missingYearsNote(this.dataset, run.model, scenario, variable, missing, hi - lo + 1));
        }
        chosen.push(...[...newest.values()].map(({ file: f }) => f).sort((a, b) => a.years[0] - b.years[0] || (a.variable < b.variable ? -1 : 1)));
      }
    }
    if (this.opts.checksums !== false) await this.addChecksums(base, chosen, log);
    return chosen;
  }

  /** The md5 of each chosen file, from the index of its version; a file the index lacks is checked as NetCDF only (and said so). */
  private async addChecksums(base: string, files: ArchiveFile[], log: (line: string) => void) {
    const versions = [...new Set(files.map((f) => f.version))];
    const sums = new Map<string, string>();
    for (const version of versions) {
      const url = `${base}/${indexName(version)}`;
      const text = await fetchText(url, this.engine, true);
      if (text === undefined) {
        log(`note: ${url} answered 404: the ${version} files are checked as NetCDF, without an md5`);
        continue;
      }
      for (const line of text.split('\n')) {
        const m = /^([0-9a-fA-F]{32})\s+\*?(\S.*?)\s*$/.exec(line);
        if (m) sums.set(m[2]!.replace(/^\.\//, ''), m[1]!.toLowerCase());
      }
    }
    let without = 0;
    for (const f of files) {
      const md5 = sums.get(f.path);
      if (md5) f.md5 = md5;
      else without++;
    }
    if (without > 0 && sums.size > 0) log(`note: ${without} of the ${files.length} files are not in the md5 index of their version: checked as NetCDF only`);
  }

  fetch(file: ArchiveFile, dir: string): Promise<Downloaded> {
    return download(file.url, path.join(dir, file.path), { ...(file.bytes !== undefined ? { bytes: file.bytes } : {}), ...(file.md5 ? { md5: file.md5 } : {}) }, this.engine);
  }
}
