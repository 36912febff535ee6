import { httpErrorOf, type HttpError } from '../http/errors.js';

/** What one map cell gave: its value, or the error answer that every place on it reports. */
export type CellOutcome<T> = { ok: true; value: T } | { ok: false; status: number; detail: string };

export const failed = (err: HttpError): CellOutcome<never> => ({ ok: false, status: err.status, detail: err.message });

interface Slot<T> {
  promise: Promise<CellOutcome<T>[]>;
  resolve: (o: CellOutcome<T>[]) => void;
  reject: (err: unknown) => void;
}

/**
 * The outcome for each of `cells` (one per place, undefined for a place without a cell), in the
 * places' order, computing each distinct cell once. `group` splits the distinct cells, in order of
 * first appearance, into the groups that one call of `compute` answers (one statement for many
 * cells). At most `concurrency` groups are computed at a time, in order, and at most `ahead` groups
 * past the one the consumer waits for: a batch shares the query pool fairly with other requests,
 * and the values held for places still to be written stay bounded. A group's values are dropped
 * after the last place that reads them. An error with an HTTP answer thrown by `compute` (a 503 for
 * a query past its time) becomes the outcome of each of its cells; any other error ends the iteration.
 */
export async function* cellsInOrder<T>(
  cells: (number | undefined)[],
  group: (distinct: number[]) => number[][],
  compute: (cells: number[]) => Promise<CellOutcome<T>[]>,
  concurrency: number,
  ahead = concurrency,
): AsyncGenerator<CellOutcome<T> | undefined> {
  const distinct = [...new Set(cells.filter((c): c is number => c !== undefined))];
  const groups = group(distinct);
  /** Each distinct cell's group, and its place in it. */
  const where = new Map<number, { g: number; k: number }>();
  groups.forEach((members, g) => members.forEach((cell, k) => where.set(cell, { g, k })));
  const lastUse = new Map<number, number>();
  cells.forEach((cell, i) => {
    if (cell !== undefined) lastUse.set(where.get(cell)!.g, i);
  });
  const slots = groups.map((): Slot<T> | undefined => {
    let resolve!: Slot<T>['resolve'];
    let reject!: Slot<T>['reject'];
    const promise = new Promise<CellOutcome<T>[]>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Awaited later, in the places' order; an early rejection must not count as unhandled.
    promise.catch(() => {});
    return { promise, resolve, reject };
  });

  let next = 0;
  let running = 0;
  let frontier = 0;
  let stopped = false;
  const pump = () => {
    while (!stopped && running < concurrency && next < groups.length && next <= frontier + ahead) {
      const slot = slots[next]!;
      const members = groups[next++]!;
      running++;
      compute(members)
        .then(
          (outcomes) => slot.resolve(outcomes),
          (err: unknown) => {
            const answer = httpErrorOf(err);
            if (answer) slot.resolve(members.map(() => failed(answer)));
            else slot.reject(err);
          },
        )
        .finally(() => {
          running--;
          pump();
        });
    }
  };

  try {
    pump();
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i];
      if (cell === undefined) {
        yield undefined;
        continue;
      }
      const { g, k } = where.get(cell)!;
      if (g > frontier) {
        frontier = g;
        pump();
      }
      const outcomes = await slots[g]!.promise;
      if (lastUse.get(g) === i) slots[g] = undefined;
      yield outcomes[k]!;
    }
  } finally {
    // The consumer stopped (the client went away, or an error): start nothing more.
    stopped = true;
  }
}
