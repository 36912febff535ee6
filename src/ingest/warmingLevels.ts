import { runOf, type DatasetFixture } from '../reference/fixtures.js';
import type { WarmingWindow } from '../reference/catalog.js';
import type { SourceWarmingTable } from './sources.js';

/**
 * The catalog's warming-level table: per dataset, each model's 20-year window for each scenario
 * and level, from the published tables (data/sources/warming_levels/). The model names of the
 * datasets are looked up in the tables as they are, but for a second grid of a model
 * (NEX-GDDP-CMIP6's GFDL-CM4_gr2), which is the same run on another grid and takes its windows.
 * A CMIP5 model takes the 1850-1900 table when it is there and the 1861-1900 one otherwise: the
 * models whose historical run starts in 1861 are only in the latter.
 * The service reads the rows back as WarmingWindow.
 */
export type WarmingLevelRow = WarmingWindow;

/** The model whose windows a dataset's model takes: GFDL-CM4_gr2 is GFDL-CM4 on its second grid. */
export const tableModelName = (model: string) => model.replace(/_gr\d+$/, '');

/** The table a model's windows come from: the earliest reference period that has the model. */
function tableOf(tables: SourceWarmingTable[], dataset: DatasetFixture, tableModel: string): SourceWarmingTable | undefined {
  return tables
    .filter((t) => t.generation === dataset.generation)
    .sort((a, b) => a.reference[0] - b.reference[0])
    .find((t) => t.rows.some((r) => r.model === tableModel));
}

/** Every window of the dataset's models in the scenarios each model has, in table order. */
export function warmingLevelRows(tables: SourceWarmingTable[], datasets: DatasetFixture[]): WarmingLevelRow[] {
  const out: WarmingLevelRow[] = [];
  for (const d of datasets) {
    const scenarios = new Map(Object.keys(d.years).filter((s) => s !== 'historical').map((s) => [s.toLowerCase(), s]));
    for (const model of d.models) {
      const tableModel = tableModelName(model);
      const table = tableOf(tables, d, tableModel);
      if (!table) continue;
      const runScenarios = runOf(d, model)?.scenarios ?? [];
      for (const r of table.rows) {
        const scenario = scenarios.get(r.exp.toLowerCase());
        if (r.model !== tableModel || !scenario || !runScenarios.includes(scenario)) continue;
        out.push({
          dataset: d.name,
          model,
          table_model: tableModel,
          member: r.member,
          scenario,
          warming_level: r.level,
          start_year: r.startYear,
          end_year: r.endYear,
          reference_start: table.reference[0],
          reference_end: table.reference[1],
        });
      }
    }
  }
  return out;
}

const list = (items: string[]) => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/**
 * What a dataset's description says of its warming levels: where the windows come from, which
 * member the table used (against the one served), the models on another reference period, and
 * the models the table does not have.
 */
export function warmingLevelNote(dataset: DatasetFixture, rows: WarmingLevelRow[]): string {
  const own = rows.filter((r) => r.dataset === dataset.name);
  const membersOf = (model: string) => [...new Set(own.filter((r) => r.model === model).map((r) => r.member))].sort();
  const inTable = dataset.models.filter((m) => own.some((r) => r.model === m));
  const missing = dataset.models.filter((m) => !inTable.includes(m));
  const served = (m: string) => runOf(dataset, m)?.member ?? null;
  // CMIP5 runs record no member: the table's usual one is named instead.
  const counts = new Map<string, number>();
  for (const m of inTable) for (const x of membersOf(m)) counts.set(x, (counts.get(x) ?? 0) + 1);
  const usual = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  const differing = inTable.filter((m) => {
    const members = membersOf(m);
    return served(m) === null ? members.some((x) => x !== usual) : members.some((x) => x !== served(m));
  });
  const renamed = inTable.filter((m) => own.some((r) => r.model === m && r.table_model !== m));
  const otherReference = [...new Set(own.filter((r) => r.reference_start !== 1850).map((r) => `${r.reference_start}-${r.reference_end}`))].map(
    (period) => `${list(inTable.filter((m) => own.some((r) => r.model === m && `${r.reference_start}-${r.reference_end}` === period)))} against ${period}, as their historical runs start later`,
  );
  const parts = [
    ' Warming levels (/api/warming-level/): each model\'s 20-year windows are those of the IPCC AR6 Atlas tables (Hauser et al., doi:10.5281/zenodo.3591807, CC BY-SA 4.0), warming against 1850-1900',
    otherReference.length ? `; ${otherReference.join('; ')}` : '',
    '. The tables used one ensemble member per model',
    dataset.models.some((m) => served(m) !== null)
      ? differing.length
        ? `, the one served here but for ${list(differing.map((m) => `${m} (table: ${membersOf(m).join(', ')}; served: ${served(m)})`))}`
        : ', the one served here for every model'
      : usual
        ? `: ${usual}${differing.length ? ` but for ${list(differing.map((m) => `${m} (${membersOf(m).join(', ')})`))}` : ''}`
        : '',
    '.',
    renamed.length ? ` ${list(renamed.map((m) => `${m} takes ${tableModelName(m)}'s windows (the same run on another grid)`))}.` : '',
    missing.length ? ` Not in the tables, so at no warming level: ${list(missing)}.` : '',
  ];
  return parts.join('');
}
