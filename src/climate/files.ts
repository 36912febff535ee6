import fs from 'node:fs';
import path from 'node:path';

/** The one Parquet file holding a (dataset, scenario, cell), or undefined when there is no data. */
export function climateFile(dataDir: string, dataset: string, scenario: string, cellId: number): string | undefined {
  const file = path.join(dataDir, 'climate', dataset, scenario, `${cellId}.parquet`);
  return fs.existsSync(file) ? file : undefined;
}
