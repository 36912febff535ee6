/**
 * The shuffle of the ingest: the target cells (ascending) cut into consecutive ranges of
 * `rangeCells` cells, fixed when the ingest is planned. The map step stages each file's values as
 * one part per range and the reduce step takes a range at a time, so that a reducer opens only its
 * range's parts and every staged value is read once in the whole ingest, however many files and
 * ranges there are.
 */

/** The reduce's largest batch of cells (reduce.ts): a range holds at most one batch's cells unless they have many rows. */
export const DEFAULT_RANGE_CELLS = 512;

export function rangeCount(cells: number, rangeCells: number): number {
  return Math.max(1, Math.ceil(cells / rangeCells));
}

/** The range of the target cell at `index` (its place among the target cells). */
export function rangeOf(index: number, rangeCells: number): number {
  return Math.floor(index / rangeCells);
}

/** The target cells of range `r`. */
export function cellsOfRange(cells: Int32Array, r: number, rangeCells: number): Int32Array {
  return cells.subarray(r * rangeCells, Math.min(cells.length, (r + 1) * rangeCells));
}
