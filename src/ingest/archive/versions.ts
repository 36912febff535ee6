import type { ArchiveFile } from './publisher.js';

/**
 * Whether version `a` is newer than `b`, comparing their numbers in order: `v1.1` > `v1.0`,
 * `v20240915` > `v20220519`, `LOCA_2016-04-02` > `LOCA_2015-12-01`.
 */
export function newer(a: string, b: string): boolean {
  const [x, y] = [(a.match(/\d+/g) ?? []).map(Number), (b.match(/\d+/g) ?? []).map(Number)];
  for (let k = 0; k < Math.max(x.length, y.length); k++) if ((x[k] ?? 0) !== (y[k] ?? 0)) return (x[k] ?? 0) > (y[k] ?? 0);
  return false;
}

/** Of the files naming the same (model, scenario, member, variable, years), the newest version only, in a stable order. */
export function newestVersions(files: ArchiveFile[]): ArchiveFile[] {
  const newest = new Map<string, ArchiveFile>();
  for (const f of files) {
    const key = [f.model, f.scenario, f.member, f.variable, ...f.years].join('|');
    const held = newest.get(key);
    if (!held || newer(f.version, held.version)) newest.set(key, f);
  }
  return [...newest.values()].sort(
    (a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0) || (a.scenario < b.scenario ? -1 : a.scenario > b.scenario ? 1 : 0) || a.years[0] - b.years[0] || (a.variable < b.variable ? -1 : a.variable > b.variable ? 1 : 0),
  );
}
