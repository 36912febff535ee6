import { NotFoundError } from '../errors.js';

/**
 * A cell file without a variable's column: NEX-GDDP-CMIP6 cells written by a build or an ingest
 * from before humidity (ingests since write tas, hurs and huss, NULL where no file had them). The statement
 * fails to bind on the column; the answer is a 404 naming what the data lacks, not a 500.
 */
export function missingVariableColumn(err: unknown): never {
  const m = /Referenced column "?(tas|hurs|huss)"? not found/.exec(err instanceof Error ? err.message : String(err));
  if (m) {
    throw new NotFoundError(
      `The data of this place has no ${m[1]}: its files were written by a build or an ingest from before humidity. Rebuild with make data, or ingest the cell's files again (make ingest), to have it.`,
    );
  }
  throw err;
}
