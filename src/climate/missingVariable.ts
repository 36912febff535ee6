import { NotFoundError } from '../errors.js';

/**
 * A cell file without a variable's column: NEX-GDDP-CMIP6 cells written by `make ingest`, which
 * reads tasmax, tasmin and pr only so far, or by a build from before humidity. The statement
 * fails to bind on the column; the answer is a 404 naming what the data lacks, not a 500.
 */
export function missingVariableColumn(err: unknown): never {
  const m = /Referenced column "?(tas|hurs|huss)"? not found/.exec(err instanceof Error ? err.message : String(err));
  if (m) {
    throw new NotFoundError(
      `The data of this place has no ${m[1]}: its files were written without it (make ingest reads tasmax, tasmin and pr only, and builds before humidity had none). Rebuild with make data for the synthetic humidity.`,
    );
  }
  throw err;
}
