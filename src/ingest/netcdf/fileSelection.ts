import path from 'node:path';
import { CORE_VARIABLES } from '../../reference/datasetVariables.js';
import { compareVersions, parseCmip6Name, type Cmip6Name } from './cmip6Names.js';

/** A source file the ingest leaves out, and why (printed by the ingest). */
export interface SkippedFile {
  file: string;
  reason: string;
  /** The file read instead, when a newer version (or the same file elsewhere) replaces it. */
  instead?: string;
}

/**
 * Which of the listed files to read. The publishers' folders hold more than daily tasmax, tasmin
 * and pr of one version, and downloading a folder brings all of it: so, by the CMIP6 file names,
 * - of several versions of one file (NEX-GDDP-CMIP6 `_v1.1` beside the v1.0 file; LOCA2's pr
 *   v20220519 beside its revision v20240915) the newest is read, the others skipped;
 * - LOCA2's monthly and yearly aggregates (`.monthly.nc`, `.yearly.nc`) are skipped: not daily values;
 * - other variables are skipped: those the dataset does not have here (`variables`: tasmax, tasmin
 *   and pr, and NEX-GDDP-CMIP6's tas, hurs and huss), and the rest of the folder (sfcWind, rsds, ...).
 * Files whose names follow no CMIP6 naming are all kept (the CMIP5 namings and attribute-only
 * names are judged when read).
 */
export function selectFiles(files: string[], variables: readonly string[] = CORE_VARIABLES): { files: string[]; skipped: SkippedFile[] } {
  const skipped: SkippedFile[] = [];
  const daily: { file: string; name: Cmip6Name }[] = [];
  for (const file of files) {
    const name = parseCmip6Name(path.basename(file));
    if (!name) continue;
    if (name.aggregate) {
      skipped.push({ file, reason: `a LOCA2 ${name.aggregate} aggregate, not daily values (the ingest reads the daily files, named without .${name.aggregate})` });
    } else if (!variables.includes(name.variable.toLowerCase())) {
      skipped.push({ file, reason: `holds ${name.variable}; the service serves ${variables.join(', ')}` });
    } else {
      daily.push({ file, name });
    }
  }
  // The newest version of each file first (the first listed among equal versions), then the rest against it.
  const newest = new Map<string, { file: string; name: Cmip6Name }>();
  for (const f of daily) {
    const held = newest.get(f.name.fileKey);
    if (!held || compareVersions(f.name.version, held.name.version) > 0) newest.set(f.name.fileKey, f);
  }
  for (const { file, name } of daily) {
    const keep = newest.get(name.fileKey)!;
    if (keep.file === file) continue;
    const same = compareVersions(name.version, keep.name.version) === 0;
    skipped.push({
      file,
      instead: keep.file,
      reason: same
        ? `the same file (${name.versionLabel}) as ${keep.file}, read once`
        : `${name.versionLabel}, replaced by the newer ${keep.name.versionLabel}: ${keep.file}`,
    });
  }
  const dropped = new Set(skipped.map((s) => s.file));
  // Older versions first (a stable sort: otherwise the listed order). Files that overlap without
  // being versions of one another (LOCA2's NAmer file and a region's, in different versions) are
  // both read, and where two files cover a value the one staged last wins
  // (sql/ingest/merge_partition.sql): so the newer version's values are the ones served.
  const versionOf = new Map(daily.map((f) => [f.file, f.name.version]));
  const kept = files.filter((f) => !dropped.has(f));
  const order = kept.map((file, k) => ({ file, k, version: versionOf.get(file) ?? [] }));
  order.sort((a, b) => compareVersions(a.version, b.version) || a.k - b.k);
  return { files: order.map((o) => o.file), skipped };
}
