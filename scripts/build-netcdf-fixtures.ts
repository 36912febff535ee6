/**
 * Writes small sample NetCDF files in the NEX-GDDP, LOCA, NEX-GDDP-CMIP6 and LOCA2 layouts
 * (scripts/archiveModel/fixtureSets.ts) into a folder, one subfolder per layout, to try `make ingest` with:
 *   node_modules/.bin/tsx scripts/build-netcdf-fixtures.ts .tmp/netcdf-samples
 *   make ingest DATASET=NEX-GDDP SRC=.tmp/netcdf-samples/nex
 *   make ingest DATASET=NEX-GDDP-CMIP6 SRC=.tmp/netcdf-samples/nex6
 *   make ingest DATASET=LOCA2 SRC=.tmp/netcdf-samples/loca2
 *   make ingest DATASET=NEX-GDDP-CMIP6 SRC=.tmp/netcdf-samples/humid   (tas, hurs, huss)
 */
import path from 'node:path';
import { writeHumidFixtures, writeSampleFixtures } from './archiveModel/fixtureSets.js';

const dir = path.resolve(process.argv[2] ?? '.tmp/netcdf-samples');
const files = { ...(await writeSampleFixtures(dir)), humid: await writeHumidFixtures(path.join(dir, 'humid')) };
for (const [folder, list] of Object.entries(files)) console.log(`${path.join(dir, folder)}: ${list.length} files`);
