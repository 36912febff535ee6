/**
 * The child process in which the server builds the default data into DATA_DIR while it serves
 * (DATA_AUTOBUILD=on, see src/ingest/autobuild.ts): in place and resumable, most populous cities
 * first. It reports over the IPC channel and ends when the server does.
 */
import { loadConfig } from '../config.js';
import { buildDataset } from './build.js';
import { BuildError } from './buildError.js';
import { buildFailureHints } from './buildFailure.js';

export type AutobuildMessage = { line: string } | { failed: string[] };

const report = (message: AutobuildMessage, then: () => void = () => {}) => (process.send ? process.send(message, () => then()) : then());

// The server is gone (its IPC channel closed): a build nobody serves stops; the next start resumes it.
process.on('disconnect', () => process.exit(0));

const config = loadConfig();
buildDataset({ outDir: config.DATA_DIR, inPlace: true, climateCities: config.DATA_CITIES, seed: config.DATA_SEED, areaCities: config.DATA_AREA_CITIES, cmip6Cities: config.DATA_CMIP6_CITIES, cmip6AreaCities: config.DATA_CMIP6_AREA_CITIES, log: (line) => report({ line }) }).then(
  () => process.exit(0),
  (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    const lines = [`The default data build failed: ${message}`, ...buildFailureHints(message, config.DATA_DIR)];
    if (err instanceof Error && !(err instanceof BuildError) && err.stack) lines.push(err.stack);
    report({ failed: lines }, () => process.exit(1));
  },
);
