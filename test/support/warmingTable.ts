import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../src/config.js';
import { DATASETS } from '../../src/reference/fixtures.js';

/**
 * The published warming-level tables read on their own (data/sources/warming_levels/), and the
 * windows a dataset's model takes by the rules docs/indicators.md states: its own name (GFDL-CM4's for
 * GFDL-CM4_gr2); for CMIP5 the 1850-1900 table unless the model is only in the 1861-1900 one.
 */

export type CsvRow = { model: string; member: string; exp: string; level: number; start: number; end: number };
const DIR = path.join(ROOT, 'data', 'sources', 'warming_levels');
function csv(name: string): CsvRow[] {
  return fs
    .readFileSync(path.join(DIR, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#') && !l.startsWith('model,'))
    .map((l) => {
      const [model, member, exp, level, start, end] = l.split(', ');
      return { model: model!, member: member!, exp: exp!, level: Number(level), start: Number(start), end: Number(end) };
    });
}
const CMIP6 = csv('cmip6_warming_levels_one_ens_1850_1900.csv');
const CMIP5 = csv('cmip5_warming_levels_one_ens_1850_1900.csv');
const CMIP5_1861 = csv('cmip5_warming_levels_one_ens_1861_1900.csv');

/** The rows a dataset's model takes in the service's scenario. */
export function tableRows(dataset: string, model: string, scenario: string): (CsvRow & { reference: string })[] {
  const d = DATASETS.find((x) => x.name === dataset)!;
  const name = model === 'GFDL-CM4_gr2' ? 'GFDL-CM4' : model;
  let table = d.generation === 'CMIP6' ? CMIP6 : CMIP5;
  let reference = '1850-1900';
  if (d.generation === 'CMIP5' && !CMIP5.some((r) => r.model === name)) {
    table = CMIP5_1861;
    reference = '1861-1900';
  }
  return table.filter((r) => r.model === name && r.exp === scenario.toLowerCase()).map((r) => ({ ...r, reference }));
}

/** A model's window at a level in a scenario, or undefined. */
export const tableWindow = (dataset: string, model: string, scenario: string, level: string) => tableRows(dataset, model, scenario).find((r) => r.level === Number(level));
