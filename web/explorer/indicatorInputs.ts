/**
 * Whether the view's dataset can answer an indicator: each indicator names its input variables
 * (/api/indicator/ `variables`) and each dataset its own (/api/dataset/ `variables`; tas, hurs and
 * huss are NEX-GDDP-CMIP6's only), so the page offers the humid-heat indicators where the inputs
 * are and says why not elsewhere, instead of sending a request that can only answer 400.
 */

interface Needs {
  label: string;
  variables: readonly string[];
}
interface Has {
  name: string;
  /** Absent from an older server: tasmax, tasmin and pr, what every dataset has. */
  variables?: readonly string[];
}

const EVERY_DATASET = ['tasmax', 'tasmin', 'pr'];
const variablesOf = (d: Has) => d.variables ?? EVERY_DATASET;

/** The indicator's inputs the dataset lacks. */
export const missingInputs = (indicator: Needs, dataset: Has): string[] => indicator.variables.filter((v) => !variablesOf(dataset).includes(v));

/** "A", "A and B", "A, B and C". */
const list = (names: readonly string[]) => (names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

/** Why the dataset cannot show the indicator, and which datasets can; undefined when it can. */
export function inputsNote(indicator: Needs, dataset: Has, datasets: readonly Has[]): string | undefined {
  const missing = missingInputs(indicator, dataset);
  if (missing.length === 0) return undefined;
  const able = datasets.filter((d) => missingInputs(indicator, d).length === 0).map((d) => d.name);
  return `${indicator.label} needs ${list(indicator.variables)}; ${dataset.name} has no ${list(missing)}.` + (able.length ? ` Choose ${list(able)} to see it.` : '');
}
