import { HttpError } from '../http/errors.js';

/** What one map cell gave: its value, or the HttpError that every place on it reports. */
export type CellOutcome<T> = { ok: true; value: T } | { ok: false; status: number; detail: string };

interface Slot<T> {
  promise: Promise<CellOutcome<T>>;
  resolve: (o: CellOutcome<T>) => void;
  reject: (err: unknown) => void;
  started: boolean;
}

/**
 * The outcome for each of `cells` (one per place, undefined for a place without a cell), in the
 * places' order, computing each distinct cell once. At most `concurrency` cells are computed at a
 * time, in the order they first appear, and at most `ahead` distinct cells past the one the
 * consumer waits for: a batch shares the query pool fairly with other requests, and the values
 * held for places still to be written stay bounded. A cell's value is dropped after its last place.
 * HttpErrors (a 404 for a missing file, a 503 for a cell still being built) become that cell's
 * outcome; any other error ends the iteration.
 */
export async function* cellsInOrder<T>(cells: (number | undefined)[], compute: (cellId: number) => Promise<T>, concurrency: number, ahead = 2 * concurrency): AsyncGenerator<CellOutcome<T> | undefined> {
  const order: number[] = [];
  const index = new Map<number, number>();
  const lastUse = new Map<number, number>();
  cells.forEach((cell, i) => {
    if (cell === undefined) return;
    if (!index.has(cell)) index.set(cell, order.push(cell) - 1);
    lastUse.set(cell, i);
  });
  const slots = order.map((): Slot<T> => {
    let resolve!: Slot<T>['resolve'];
    let reject!: Slot<T>['reject'];
    const promise = new Promise<CellOutcome<T>>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Awaited later, in the places' order; an early rejection must not count as unhandled.
    promise.catch(() => {});
    return { promise, resolve, reject, started: false };
  });

  let next = 0;
  let running = 0;
  let frontier = 0;
  let stopped = false;
  const pump = () => {
    while (!stopped && running < concurrency && next < order.length && next <= frontier + ahead) {
      const slot = slots[next]!;
      const cell = order[next++]!;
      slot.started = true;
      running++;
      compute(cell)
        .then(
          (value) => slot.resolve({ ok: true, value }),
          (err: unknown) => (err instanceof HttpError ? slot.resolve({ ok: false, status: err.status, detail: err.message }) : slot.reject(err)),
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
      const d = index.get(cell)!;
      if (d > frontier) {
        frontier = d;
        pump();
      }
      const outcome = await slots[d]!.promise;
      if (lastUse.get(cell) === i) slots[d] = undefined as unknown as Slot<T>;
      yield outcome;
    }
  } finally {
    // The consumer stopped (the client went away, or an error): start nothing more.
    stopped = true;
  }
}
