/**
 * `make archive-model`: writes a scale model of NEX-GDDP-CMIP6 or LOCA2 (scripts/archiveModel/archive.ts)
 * into ARCHIVE_DIR (default .tmp/archive), to try `make ingest` and the benchmarks on files shaped
 * as the publishers'. Files already there are kept.
 *   make archive-model DATASET=NEX-GDDP-CMIP6 MODELS=ACCESS-CM2,CanESM5 SCENARIOS=ssp245 YEARS=2050-2051 \
 *     VARIABLES=tasmax,tasmin,pr [BBOX=west,south,east,north] [CHUNKS=t,lat,lon] [ARCHIVE_DIR=...]
 * MODELS may be a number: the first N models of the dataset. Without BBOX the files are full size
 * (NEX-GDDP-CMIP6: 1440 x 600 x 365 float32, about 0.6 GB each).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { planArchive, writeArchive, type ArchiveDataset } from './archiveModel/archive.js';
import { VARIABLES, type Variable } from '../src/ingest/netcdf/cfValues.js';
import { DATASETS } from '../src/reference/fixtures.js';

const { values: a } = parseArgs({
  options: {
    dir: { type: 'string' }, dataset: { type: 'string' }, models: { type: 'string' }, scenarios: { type: 'string' },
    years: { type: 'string' }, variables: { type: 'string' }, bbox: { type: 'string' }, chunks: { type: 'string' },
  },
});

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const list = (text: string | undefined) => (text ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
const numbers = (name: string, text: string | undefined, count: number) => {
  if (!text) return undefined;
  const xs = text.split(',').map(Number);
  if (xs.length !== count || xs.some((x) => !Number.isFinite(x))) fail(`${name} takes ${count} comma-separated numbers; got '${text}'`);
  return xs;
};

const datasetName = a.dataset || 'NEX-GDDP-CMIP6';
const dataset = DATASETS.find((d) => d.name === datasetName && d.generation === 'CMIP6');
if (!dataset) fail(`DATASET must be NEX-GDDP-CMIP6 or LOCA2; got '${datasetName}'`);
const scenarios = list(a.scenarios || 'ssp245');
const models = /^\d+$/.test(a.models ?? '')
  ? dataset.runs.filter((r) => scenarios.every((s) => r.scenarios.includes(s))).slice(0, Number(a.models)).map((r) => r.model)
  : list(a.models || 'ACCESS-CM2');
const yearMatch = /^(\d{4})(?:-(\d{4}))?$/.exec(a.years || '2050');
if (!yearMatch) fail(`YEARS takes a year or a range (2050 or 2050-2052); got '${a.years}'`);
const variables = list(a.variables || 'tasmax,tasmin,pr');
for (const v of variables) if (!VARIABLES.includes(v as Variable)) fail(`VARIABLES: '${v}' is not one of ${VARIABLES.join(', ')}`);

let files;
try {
  files = planArchive({
    dataset: datasetName as ArchiveDataset,
    models,
    scenarios,
    years: [Number(yearMatch[1]), Number(yearMatch[2] ?? yearMatch[1])],
    variables: variables as Variable[],
    bbox: numbers('BBOX', a.bbox, 4) as [number, number, number, number] | undefined,
    chunks: numbers('CHUNKS', a.chunks, 3) as [number, number, number] | undefined,
  });
} catch (err) {
  fail((err as Error).message);
}
const root = path.resolve(a.dir || '.tmp/archive');
console.log(`${files.length} ${datasetName} files into ${root}`);
const started = Date.now();
const { written, kept } = await writeArchive(root, files, (line) => console.log(line));
console.log(`wrote ${written.length} files, kept ${kept.length} already there, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
