import type { HistoricRange } from '../reference/catalog.js';
import { INDICATORS, VALID_AGGREGATIONS, type IndicatorMeta } from './metadata.js';

/**
 * The 29 indicators: metadata (metadata.ts) and, by name, their SQL template
 * (sql/indicators/<name>.sql). A new indicator is one template plus one metadata entry.
 */
export const indicatorByName = new Map(INDICATORS.map((i) => [i.name, i]));

/** Names are exact; the original's deprecated `yearly_` prefix is accepted as an alias. */
export function findIndicator(name: string): IndicatorMeta | undefined {
  return indicatorByName.get(name) ?? (name.startsWith('yearly_') ? indicatorByName.get(name.slice(7)) : undefined);
}

/** The indicator as the API shows it; the historic_range default is the latest range of this build. */
export function indicatorJson(meta: IndicatorMeta, ranges: HistoricRange[]) {
  const latest = [...ranges].sort((a, b) => b.end_year - a.end_year)[0];
  return {
    name: meta.name,
    label: meta.label,
    description: meta.description,
    valid_aggregations: VALID_AGGREGATIONS,
    variables: meta.variables,
    ...(meta.formula ? { formula: meta.formula.text, source: meta.formula.source } : {}),
    available_units: meta.availableUnits,
    default_units: meta.defaultUnits,
    parameters: meta.parameters.map((p) =>
      p.name === 'historic_range' && latest ? { ...p, default: String(latest.start_year) } : p,
    ),
  };
}
