import path from 'node:path';
import type { AttrValue } from './cfValues.js';
import { VARIABLES, type Variable } from './cfValues.js';
import { parseCmip6Name, type Cmip6Name } from './cmip6Names.js';

/** What a file holds, as its name or (where the name does not say) its global attributes tell. */
export interface FileIdentity {
  variable?: Variable;
  model?: string;
  scenario?: string;
  /** The dataset whose naming the file follows, when it follows one. */
  layout?: 'NEX-GDDP' | 'LOCA' | 'NEX-GDDP-CMIP6' | 'LOCA2';
  /** What a CMIP6 name states besides (member, grid label, years, version, region). */
  cmip6?: Cmip6Name;
  /** The ensemble member the global attributes state (CMIP6 variant_label). */
  member?: string;
}

const SCENARIOS: Record<string, string> = {
  historical: 'historical',
  rcp45: 'RCP45',
  'rcp4.5': 'RCP45',
  rcp85: 'RCP85',
  'rcp8.5': 'RCP85',
  ssp126: 'ssp126',
  ssp245: 'ssp245',
  ssp370: 'ssp370',
  ssp585: 'ssp585',
};

export const scenarioName = (text: string | undefined) => (text === undefined ? undefined : SCENARIOS[text.trim().toLowerCase().replace(/\s+/g, '')]);

// tasmax_day_BCSD_rcp85_r1i1p1_ACCESS1-0_2050.nc
const NEX = /^(tasmax|tasmin|pr)_day_BCSD_([a-z0-9.]+)_(r\d+i\d+p\d+)_(.+)_(\d{4})\.nc4?$/i;
// tasmax_day_ACCESS1-0_rcp85_r1i1p1_20500101-20501231.LOCA_2016-04-02.16th.nc
const LOCA = /^(tasmax|tasmin|pr)_day_(.+)_(historical|rcp\d+)_(r\d+i\d+p\d+)_(\d{8})-(\d{8})\.LOCA_[\d-]+\.[a-z0-9]+\.nc4?$/i;

/** The variable, model and scenario a file name states, following either dataset's naming. */
export function identityFromName(file: string): FileIdentity {
  const base = path.basename(file);
  let m = NEX.exec(base);
  if (m) return { layout: 'NEX-GDDP', variable: m[1]!.toLowerCase() as Variable, scenario: scenarioName(m[2]) ?? m[2], model: m[4] };
  m = LOCA.exec(base);
  if (m) return { layout: 'LOCA', variable: m[1]!.toLowerCase() as Variable, model: m[2], scenario: scenarioName(m[3]) ?? m[3] };
  const c = parseCmip6Name(base);
  if (c) {
    // A variable the service does not serve (hurs, tas, ...) is left unset: the file is skipped or refused by that.
    const variable = (VARIABLES as string[]).includes(c.variable.toLowerCase()) ? (c.variable.toLowerCase() as Variable) : undefined;
    return { layout: c.layout, variable, model: c.model, scenario: c.scenario, cmip6: c };
  }
  return {};
}

const text = (v: AttrValue | undefined) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/**
 * Fills what the name did not say from CF / CMIP global attributes: the model from driving_model_id,
 * model_id, source_id, cmip6_source_id (NEX-GDDP-CMIP6), model_source_id (LOCA2) or the first word
 * of the title (the first that names a model of the dataset; NEX-GDDP's model_id is "BCSD"), the
 * scenario from experiment_id, experiment or scenario, the member from variant_label or
 * model_variant_id, the variable from variable_id or the one data variable named tasmax, tasmin or pr.
 */
export function identityFromAttributes(globalAttrs: Record<string, AttrValue>, models: string[], dataVariables: string[]): FileIdentity {
  const byLower = new Map(models.map((m) => [m.toLowerCase(), m]));
  const candidates = [
    globalAttrs.driving_model_id, globalAttrs.model_id, globalAttrs.source_id, globalAttrs.parent_source_id,
    // NEX-GDDP-CMIP6 and LOCA2 (whose source and model_id say nothing of the model).
    globalAttrs.cmip6_source_id, globalAttrs.model_source_id,
    text(globalAttrs.title)?.split(/[\s,]+/)[0],
  ];
  const model = candidates.map((c) => byLower.get(text(c)?.toLowerCase() ?? '')).find((m) => m !== undefined);
  const scenario =
    scenarioName(text(globalAttrs.experiment_id)) ?? scenarioName(text(globalAttrs.experiment)) ?? scenarioName(text(globalAttrs.driving_experiment_id)) ??
    scenarioName(text(globalAttrs.scenario));
  const named = text(globalAttrs.variable_id)?.toLowerCase();
  const present = dataVariables.filter((v): v is Variable => (VARIABLES as string[]).includes(v));
  const variable = named && (VARIABLES as string[]).includes(named) ? (named as Variable) : present.length === 1 ? present[0] : undefined;
  return { model, scenario, variable, member: text(globalAttrs.variant_label) ?? text(globalAttrs.model_variant_id) };
}
