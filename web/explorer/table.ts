import { shownScenarios, STATISTICS } from './state.js';
import { formatValue, statisticValue, type Row } from './series.js';

/**
 * The chart's numbers as a table: one row per period, the period label as the API gives it, then
 * 10th, median and 90th per scenario under a header row naming the scenario (a column group).
 */
export function renderTable(container: HTMLElement, rows: Row[], units: string, shown: string[]): void {
  const table = document.createElement('table');
  table.setAttribute('aria-label', 'Data table');
  const caption = document.createElement('caption');
  caption.textContent = `Ensemble 10th percentile, median and 90th percentile across models, in ${units}.`;
  const head = document.createElement('thead');
  const groups = document.createElement('tr');
  const periodHead = document.createElement('th');
  periodHead.scope = 'col';
  periodHead.rowSpan = 2;
  periodHead.textContent = 'Period';
  groups.append(periodHead);
  const stats = document.createElement('tr');
  const scenarios = shownScenarios(shown);
  for (const s of scenarios) {
    const th = document.createElement('th');
    th.scope = 'colgroup';
    th.colSpan = STATISTICS.length;
    th.textContent = s.label;
    groups.append(th);
    for (const stat of STATISTICS) {
      const sh = document.createElement('th');
      sh.scope = 'col';
      sh.textContent = stat;
      stats.append(sh);
    }
  }
  head.append(groups, stats);
  const body = document.createElement('tbody');
  for (const row of rows) {
    const tr = document.createElement('tr');
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = row.period;
    tr.append(th);
    for (const s of scenarios) {
      for (const stat of STATISTICS) {
        const td = document.createElement('td');
        td.textContent = formatValue(statisticValue(row, s.name, stat));
        tr.append(td);
      }
    }
    body.append(tr);
  }
  // A column for the period, then one group per scenario, as the header row groups them.
  const groupCols = scenarios.map((s) => {
    const group = document.createElement('colgroup');
    group.span = STATISTICS.length;
    group.className = `scenario-${s.name}`;
    return group;
  });
  const periodCol = document.createElement('colgroup');
  periodCol.span = 1;
  table.append(caption, periodCol, ...groupCols, head, body);
  container.replaceChildren(table);
}
