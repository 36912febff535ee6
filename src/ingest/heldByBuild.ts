import { cellAt, type Grid } from '../reference/grids.js';
import type { ArchiveFile } from './archive/publisher.js';
import { changedAtPublisher, seriesOf, type FetchedFile, type FetchedRegion, type FetchRecord } from './fetchRecord.js';
import { boxCells } from './netcdf/cellSelection.js';

/** Why a listed file is fetched although the build's record names its series. */
export interface Replacement {
  file: ArchiveFile;
  old: FetchedFile;
  why: string;
  /** Cells the old file's values were ingested for that this fetch does not ask for: they keep the old values. */
  cellsLeft: number;
}

export interface HeldSplit {
  /** To download and ingest: new to the build, replaced at the publisher, or lacking some of the region's cells. */
  todo: ArchiveFile[];
  /** The same publisher file, already ingested for every cell the region asks of it. */
  held: ArchiveFile[];
  replaced: Replacement[];
}

/**
 * Splits a selection's files by what the build's fetch record says it holds. A file is held when
 * the record names the same publisher file (its path below the archive's address, version, and,
 * where the publisher gives them, md5 and size) and the regions it was ingested for cover every
 * cell this fetch wants of it: the cells of BBOX and POINTS, and the catalogue's cities when the
 * file comes whole (an NCSS subset holds the box only). A publisher's file covers the whole grid, so
 * a bigger box wants cells of every file that the earlier, smaller box did not: each is fetched
 * again (and its cells of the smaller box written again with the same values).
 */
export function splitHeld(files: ArchiveFile[], record: FetchRecord | undefined, grid: Grid, want: FetchedRegion): HeldSplit {
  const split: HeldSplit = { todo: [], held: [], replaced: [] };
  const byPath = new Map((record?.files ?? []).map((f) => [f.path, f]));
  const bySeries = new Map((record?.files ?? []).map((f) => [seriesOf(f), f]));
  const wanted = regionCells(grid, want);
  const wantedSet = new Set(wanted);
  const covered = new Map<string, { cells: Set<number>; cities: boolean }>();
  const coverOf = (regions: FetchedRegion[]) => {
    const key = JSON.stringify(regions);
    let c = covered.get(key);
    if (!c) {
      c = { cells: new Set(regions.flatMap((r) => Array.from(regionCells(grid, r)))), cities: regions.some((r) => r.cities) };
      covered.set(key, c);
    }
    return c;
  };
  for (const f of files) {
    const same = byPath.get(f.path);
    const changed = same ? changedAtPublisher(f, same) : undefined;
    const older = same ? undefined : bySeries.get(seriesOf(f));
    const left = (old: FetchedFile) => [...coverOf(old.regions ?? []).cells].filter((cell) => !wantedSet.has(cell)).length;
    if (same && changed) split.replaced.push({ file: f, old: same, why: `changed at the publisher since the build fetched it (${changed})`, cellsLeft: left(same) });
    else if (older) split.replaced.push({ file: f, old: older, why: `the publisher's ${f.version} replaces the build's ${older.version} (${older.path})`, cellsLeft: left(older) });
    if (!same || changed) {
      split.todo.push(f);
      continue;
    }
    const c = coverOf(same.regions ?? []);
    const all = (!want.cities || c.cities) && wanted.every((cell) => c.cells.has(cell));
    (all ? split.held : split.todo).push(f);
  }
  return split;
}

/** The cells of a region's box and points (its cities are not cells of it: they are the build's). */
export function regionCells(grid: Grid, r: FetchedRegion): Int32Array {
  const box = r.bbox ? boxCells(grid, r.bbox) : new Int32Array(0);
  const points = (r.points ?? []).map((p) => cellAt(grid, p.lat, p.lon)).filter((c): c is number => c !== undefined);
  return Int32Array.from(new Set([...box, ...points]));
}
