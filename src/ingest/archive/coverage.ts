import { modelLacks } from '../../reference/datasetVariables.js';
import type { ArchiveFile, Selection } from './publisher.js';

/**
 * The note for years of a run's variable the archive lacks. A model the publisher never made the
 * variable for (datasetVariables' gaps) is said to be so, with what follows for the answers, rather
 * than read as an archive missing files.
 */
export function missingYearsNote(dataset: string, model: string, scenario: string, variable: string, missing: number[], wanted: number): string {
  if (missing.length === wanted && modelLacks(dataset, model, [variable]).length > 0) {
    return `note: ${dataset} publishes no ${variable} of ${model} (a known gap of the publisher, listed under models_lacking at /api/dataset/): answers that need ${variable} leave ${model} out`;
  }
  return `note: the ${dataset} archive has no ${variable} of ${model} ${scenario} for ${missing.length > 5 ? `${missing.length} years (${missing[0]}-${missing.at(-1)})` : missing.join(', ')}`;
}

/** A log that says each line once: a publisher's gap of a model is the same in every scenario. */
export function onceEach(log: (line: string) => void): (line: string) => void {
  const said = new Set<string>();
  return (line) => {
    if (!said.has(line)) log(line);
    said.add(line);
  };
}

/**
 * Says (as notes, not errors) what of a selection the publisher's index does not have: runs with no
 * file at all, and years a variable lacks. `spans` are the years each scenario covers in the
 * service's catalogue. An omitted MODELS means every model of the catalogue, and an archive may
 * hold fewer: the fetch takes what there is and tells what there was not.
 */
export function noteGaps(dataset: string, selection: Selection, files: ArchiveFile[], spans: Record<string, [number, number]>, log: (line: string) => void): void {
  const [y0, y1] = selection.years;
  const absent: string[] = [];
  const note = onceEach(log);
  for (const run of selection.runs) {
    for (const scenario of run.scenarios) {
      const ofRun = files.filter((f) => f.model === run.model && f.scenario === scenario);
      if (ofRun.length === 0) {
        absent.push(`${run.model} ${scenario}`);
        continue;
      }
      const span = spans[scenario] ?? [y0, y1];
      for (const variable of selection.variables) {
        const covered = new Set<number>();
        for (const f of ofRun.filter((x) => x.variable === variable)) for (let y = f.years[0]; y <= f.years[1]; y++) covered.add(y);
        const [lo, hi] = [Math.max(y0, span[0]), Math.min(y1, span[1])];
        const missing: number[] = [];
        for (let y = lo; y <= hi; y++) if (!covered.has(y)) missing.push(y);
        if (missing.length > 0) note(missingYearsNote(dataset, run.model, scenario, variable, missing, hi - lo + 1));
      }
    }
  }
  if (absent.length > 0) {
    const shown = absent.slice(0, 8).join(', ');
    log(`note: the ${dataset} archive has no file of ${absent.length} of the selection's model runs (${shown}${absent.length > 8 ? `, and ${absent.length - 8} more` : ''}): they are left out`);
  }
}
