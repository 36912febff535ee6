import type { HistoricRange, Indicator, IndicatorParam } from './types.js';

/** Parameters every indicator takes; the page has its own controls for those it uses. */
const COMMON = new Set(['agg', 'custom_time_agg', 'dataset', 'models', 'time_aggregation', 'units', 'years', 'relative_to', 'change', 'windows', 'warming_level', 'pool_scenarios']);

const LABELS: Record<string, string> = {
  threshold: 'Threshold',
  threshold_comparator: 'Threshold comparison',
  threshold_units: 'Threshold units',
  percentile: 'Percentile',
  historic_range: 'Historic range',
  basetemp: 'Base temperature',
  basetemp_units: 'Base temperature units',
  n: 'Days in a row (n)',
};

const NUMERIC = new Set(['threshold', 'percentile', 'basetemp', 'n']);

/** Return levels answer per return period, not per period: the page charts periods, so it does not offer them. */
const RETURN_LEVELS = new Set(['return_period', 'baseline_return_period', 'include']);

/** The indicator's own parameters, in the metadata's order. */
export function ownParams(indicator: Indicator): IndicatorParam[] {
  return indicator.parameters.filter((p) => !COMMON.has(p.name) && !RETURN_LEVELS.has(p.name));
}

/**
 * The choices a parameter's description lists ("Options: ['F', 'C', 'K']" or "Options: lt, gt,
 * lte, gte. ..."): the metadata has no separate field for them.
 */
export function listedOptions(description: string): string[] | undefined {
  const bracketed = /Options:\s*\[([^\]]*)\]/.exec(description);
  const plain = /Options:\s*([\w/^]+(?:,\s*[\w/^]+)+)/.exec(description);
  const list = bracketed?.[1] ?? plain?.[1];
  if (!list) return undefined;
  const values = list.split(',').map((v) => v.trim().replace(/^'|'$/g, '')).filter(Boolean);
  return values.length > 0 ? values : undefined;
}

function option(value: string, text: string, selected: boolean): HTMLOptionElement {
  const o = document.createElement('option');
  o.value = value;
  o.textContent = text;
  o.selected = selected;
  return o;
}

/**
 * The controls of the indicator's own parameters in `container`, each with its label and the
 * metadata's description as help text; values from `current` (the URL) or the defaults. Returns
 * the values the controls start with that are not the defaults.
 */
export function renderParams(
  container: HTMLElement,
  indicator: Indicator,
  current: Record<string, string>,
  ranges: HistoricRange[],
  onChange: (values: Record<string, string>) => void,
): Record<string, string> {
  container.replaceChildren();
  const controls: Array<HTMLInputElement | HTMLSelectElement> = [];
  const defaults = new Map(indicator.parameters.map((p) => [p.name, p.default === undefined ? '' : String(p.default)]));
  // Only the values that differ from the API's defaults: the address and the requests stay those
  // of the choices made, the same before and after the metadata has loaded.
  const read = () => Object.fromEntries(controls.map((c) => [c.name, c.value.trim()]).filter(([name, value]) => value !== '' && value !== defaults.get(name!)));
  for (const p of ownParams(indicator)) {
    const id = `param-${p.name}`;
    const value = current[p.name] ?? (p.default === undefined ? '' : String(p.default));
    const field = document.createElement('div');
    field.className = 'field';
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = `${LABELS[p.name] ?? p.name.replace(/_/g, ' ')}${p.required ? ' (required)' : ''}`;
    const help = document.createElement('p');
    help.className = 'help';
    help.id = `${id}-help`;
    help.textContent = p.description;

    let control: HTMLInputElement | HTMLSelectElement;
    const options = p.name === 'historic_range' ? ranges.map((r) => String(r.start_year)) : listedOptions(p.description);
    if (options) {
      const select = document.createElement('select');
      if (!options.includes(value)) select.append(option('', 'choose…', true));
      for (const o of options) {
        const range = p.name === 'historic_range' ? ranges.find((r) => String(r.start_year) === o) : undefined;
        select.append(option(o, range ? `${range.start_year}-${range.end_year}` : o, o === value));
      }
      control = select;
    } else {
      const input = document.createElement('input');
      input.type = NUMERIC.has(p.name) ? 'number' : 'text';
      if (p.name === 'percentile') {
        input.min = '1';
        input.max = '99';
        input.step = '1';
      } else if (p.name === 'n') {
        input.min = '2';
        input.max = '10';
        input.step = '1';
      } else if (input.type === 'number') {
        input.step = 'any';
      }
      input.value = value;
      control = input;
    }
    control.id = id;
    control.name = p.name;
    control.required = p.required;
    control.setAttribute('aria-describedby', help.id);
    control.addEventListener('change', () => onChange(read()));
    controls.push(control);
    field.append(label, control, help);
    container.append(field);
  }
  return read();
}
