import { describe, expect, it } from 'vitest';
import { INDICATORS } from '../src/indicators/metadata.js';
import { dotName, nearestDot } from '../web/explorer/map.js';
import { dotToward, type Arrow } from '../web/explorer/mapKeyboard.js';
import { listedOptions, ownParams } from '../web/explorer/params.js';
import { datasetForPlace, placeDatasetsNote } from '../web/explorer/placeDatasets.js';
import { joinScenarios, periodX } from '../web/explorer/series.js';
import { datasetScenarios, indicatorPath, queryFromState, shownScenarios, stateFromQuery } from '../web/explorer/state.js';
import { windowsWithin, yearSpan } from '../web/explorer/windows.js';
import { levelsReached } from '../web/explorer/levels.js';
import { inputsNote, missingInputs } from '../web/explorer/indicatorInputs.js';

/** The explorer's browser modules that need no DOM: period placing, the URL state, the parameter choices. */
describe('the explorer page modules', () => {
  it('places every kind of period label the API gives at its middle in years', () => {
    expect(periodX('2050')).toBe(2050.5);
    expect(periodX('2050-01')).toBeCloseTo(2050 + 0.5 / 12);
    expect(periodX('2050-12')).toBeCloseTo(2050 + 11.5 / 12);
    expect(periodX('2010-2019')).toBe(2015);
    expect(periodX('2021-2050')).toBe(2036);
    expect(periodX('2050-Q3')).toBe(2050.625);
    expect(periodX('something else')).toBeNaN();
  });

  it('joins the scenarios on the period, in time order, leaving a scenario out where it has no such period', () => {
    const rows = joinScenarios({
      RCP85: { '2050': { median: 3 }, '2049': { median: 2 } },
      historical: { '1990': { median: 1 } },
      RCP45: { '2049': { median: 4 } },
    });
    expect(rows.map((r) => r.period)).toEqual(['1990', '2049', '2050']);
    expect(rows[1]!.values).toEqual({ RCP45: { median: 4 }, RCP85: { median: 2 } });
  });

  it("offers each dataset's scenarios: the listed ones, else those of its generation", () => {
    const names = (list: { name: string }[]) => list.map((s) => s.name);
    expect(names(datasetScenarios('NEX-GDDP'))).toEqual(['historical', 'RCP45', 'RCP85']);
    expect(names(datasetScenarios('NEX-GDDP-CMIP6'))).toEqual(['historical', 'ssp126', 'ssp245', 'ssp370', 'ssp585']);
    expect(datasetScenarios('LOCA2', ['historical', 'ssp245', 'ssp370', 'ssp585'])).toEqual([
      { name: 'historical', label: 'Historical' },
      { name: 'ssp245', label: 'SSP2-4.5' },
      { name: 'ssp370', label: 'SSP3-7.0' },
      { name: 'ssp585', label: 'SSP5-8.5' },
    ]);
    // Shown in a fixed order; a scenario the page does not know keeps its name.
    expect(shownScenarios(['ssp585', 'future', 'historical'])).toEqual([
      { name: 'historical', label: 'Historical' },
      { name: 'ssp585', label: 'SSP5-8.5' },
      { name: 'future', label: 'future' },
    ]);
    const rows = joinScenarios({ ssp585: { '2050': { median: 2 } }, historical: { '2000': { median: 1 } } });
    expect(rows.map((r) => [r.period, Object.keys(r.values)])).toEqual([['2000', ['historical']], ['2050', ['ssp585']]]);
  });

  it('round-trips the view through the URL query, the indicator parameters included', () => {
    const query = 'city=4930956&indicator=max_temperature_threshold&dataset=LOCA&time_aggregation=window&windows=2021%3A2050&units=C&relative_to=1971&threshold=95&threshold_comparator=gte&threshold_units=F';
    const state = stateFromQuery(query);
    expect(state).toMatchObject({ city: 4930956, indicator: 'max_temperature_threshold', dataset: 'LOCA', windows: '2021:2050', units: 'C', relative_to: '1971' });
    expect(state.params).toEqual({ threshold: '95', threshold_comparator: 'gte', threshold_units: 'F' });
    expect(queryFromState(state)).toBe(query);
    expect(indicatorPath(state, 'RCP85', 'csv')).toBe(
      '/api/climate-data/4930956/RCP85/indicator/max_temperature_threshold/?agg=10th%2Cmedian%2C90th&dataset=LOCA&time_aggregation=window&windows=2021%3A2050&units=C&relative_to=1971&threshold=95&threshold_comparator=gte&threshold_units=F&format=csv',
    );
    // Defaults for an empty address; windows only with the window aggregation.
    expect(queryFromState(stateFromQuery(''))).toBe('indicator=frost_days&dataset=NEX-GDDP&time_aggregation=yearly');
  });

  it('reads the choices of the threshold parameters from the indicator metadata', () => {
    const param = (indicator: string, name: string) => INDICATORS.find((i) => i.name === indicator)!.parameters.find((p) => p.name === name)!.description;
    expect(listedOptions(param('max_temperature_threshold', 'threshold_comparator'))).toEqual(['lt', 'gt', 'lte', 'gte']);
    expect(listedOptions(param('max_temperature_threshold', 'threshold_units'))).toEqual(['F', 'C', 'K']);
    expect(listedOptions(param('precipitation_threshold', 'threshold_units'))).toEqual(['kg/m^2/s', 'mm/day', 'in/day']);
    expect(listedOptions(param('cooling_degree_days', 'basetemp'))).toBeUndefined();
  });

  it('offers the n of the n-day total but not the return-level parameters, which answer per return period', () => {
    const own = (name: string) => ownParams(INDICATORS.find((i) => i.name === name)! as never).map((p) => p.name);
    expect(own('max_nday_precipitation')).toEqual(['n']);
    expect(own('max_high_temperature')).toEqual([]);
    expect(INDICATORS.find((i) => i.name === 'max_high_temperature')!.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['return_period', 'baseline_return_period', 'include']));
  });

  it('asks each scenario for the windows that overlap its years', () => {
    const windows = '1971:2000,1991:2020,2041:2070, 2071:2100';
    expect(windowsWithin(windows, 1950, 2005)).toBe('1971:2000,1991:2020');
    expect(windowsWithin(windows, 2006, 2100)).toBe('1991:2020,2041:2070,2071:2100');
    expect(windowsWithin('1971:2000', 2006, 2100)).toBe('');
    // Not a span: left for the API to explain.
    expect(windowsWithin('2041-2070', 2006, 2100)).toBe('2041-2070');
    expect(yearSpan(['2052', '2050', '2051'])).toEqual([2050, 2052]);
    expect(yearSpan([])).toBeUndefined();
  });

  it("keeps the view on a dataset the place has, and says which it has", () => {
    expect(datasetForPlace('LOCA', ['NEX-GDDP', 'LOCA'])).toBe('LOCA');
    // The place's first, in catalog order.
    expect(datasetForPlace('LOCA', ['NEX-GDDP', 'NEX-GDDP-CMIP6'])).toBe('NEX-GDDP');
    expect(datasetForPlace('LOCA', [])).toBeUndefined();
    expect(placeDatasetsNote('Boston, MA', ['NEX-GDDP', 'LOCA'])).toBe('Boston, MA has data in NEX-GDDP and LOCA.');
    expect(placeDatasetsNote('New York City, NY', ['NEX-GDDP', 'LOCA', 'NEX-GDDP-CMIP6', 'LOCA2'])).toBe('New York City, NY has data in NEX-GDDP, LOCA, NEX-GDDP-CMIP6 and LOCA2.');
    expect(placeDatasetsNote('Arlington, MA', ['NEX-GDDP'], 'LOCA')).toBe('Arlington, MA has data in NEX-GDDP only. It has no LOCA data: showing NEX-GDDP.');
    expect(placeDatasetsNote('Arlington, MA', ['NEX-GDDP'], 'NEX-GDDP')).toBe('Arlington, MA has data in NEX-GDDP only.');
    expect(placeDatasetsNote('Boston, MA', [], 'NEX-GDDP')).toBe('Boston, MA has no climate data in this build.');
  });

  it('picks the dot drawn nearest to a click between dots, the one on top on a tie', () => {
    const dots = [
      { name: 'a', x: 10, y: 10 },
      { name: 'b', x: 20, y: 10 },
      { name: 'c', x: 20, y: 10 },
    ];
    expect(nearestDot(dots, 12, 11)?.name).toBe('a');
    expect(nearestDot(dots, 18, 11)?.name).toBe('c');
    expect(nearestDot([], 0, 0)).toBeUndefined();
  });

  it("names a map dot for its city and the datasets it has", () => {
    const city = (datasets: string[]) => ({ id: 1, geometry: { type: 'Point' as const, coordinates: [-71.06, 42.36] as [number, number] }, properties: { name: 'Boston', admin: 'MA', population: 667137, datasets, region: 1 } });
    expect(dotName(city(['NEX-GDDP', 'LOCA']))).toBe('Boston, MA, has NEX-GDDP and LOCA');
    expect(dotName(city(['NEX-GDDP']))).toBe('Boston, MA, has NEX-GDDP');
    expect(dotName(city(['NEX-GDDP', 'LOCA', 'LOCA2']))).toBe('Boston, MA, has NEX-GDDP, LOCA and LOCA2');
  });

  it('moves from a map dot to the nearest one within 45 degrees of the arrow, staying where none lies that way', () => {
    //     n
    //  w  o  e1   e2
    //     s
    const dots = [
      { name: 'o', x: 100, y: 100 },
      { name: 'e1', x: 130, y: 120 },
      { name: 'e2', x: 110, y: 80 },
      { name: 'far-e', x: 200, y: 100 },
      { name: 'n', x: 105, y: 60 },
      { name: 's', x: 90, y: 125 },
      { name: 'w', x: 60, y: 100 },
    ];
    const move = (from: string, arrow: Arrow) => {
      const to = dotToward(dots, dots.findIndex((d) => d.name === from), arrow);
      return to === undefined ? undefined : dots[to]!.name;
    };
    // e2 (22.4 px, 63 degrees off east) is nearer than e1 (36.1 px, 34 degrees) but not east of o: north.
    expect(move('o', 'ArrowRight')).toBe('e1');
    expect(move('o', 'ArrowUp')).toBe('e2');
    expect(move('o', 'ArrowDown')).toBe('s');
    expect(move('o', 'ArrowLeft')).toBe('w');
    expect(move('e1', 'ArrowRight')).toBe('far-e');
    expect(move('far-e', 'ArrowRight')).toBeUndefined();
    expect(move('w', 'ArrowLeft')).toBeUndefined();
    // Exactly 45 degrees belongs to east or west, so no dot falls between two arrows.
    const diagonal = [{ x: 0, y: 0 }, { x: 10, y: 10 }];
    expect(dotToward(diagonal, 0, 'ArrowRight')).toBe(1);
    expect(dotToward(diagonal, 0, 'ArrowDown')).toBeUndefined();
  });

  it('reaches every map dot from every other with the arrows, dots drawn at the same point too', () => {
    // Scattered dots with a dense cluster (a metropolitan area) and two pairs drawn at one point.
    let seed = 11;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const dots = Array.from({ length: 150 }, (_, i) => (i % 2 === 0 ? { x: random() * 640, y: random() * 400 } : { x: 500 + random() * 15, y: 120 + random() * 15 }));
    dots.push({ ...dots[3]! }, { ...dots[40]! }, { ...dots[40]! });
    const arrows: Arrow[] = ['ArrowRight', 'ArrowLeft', 'ArrowUp', 'ArrowDown'];
    for (let start = 0; start < dots.length; start++) {
      const seen = new Set([start]);
      const queue = [start];
      while (queue.length > 0) {
        const at = queue.pop()!;
        for (const arrow of arrows) {
          const to = dotToward(dots, at, arrow);
          if (to !== undefined && !seen.has(to)) {
            seen.add(to);
            queue.push(to);
          }
        }
      }
      expect(seen.size, `from dot ${start}`).toBe(dots.length);
    }
  });

  it('keeps the warming-level view in the address and asks each scenario for its levels instead of periods', () => {
    const state = stateFromQuery('city=4887398&view=warming_level&indicator=frost_days&dataset=NEX-GDDP&time_aggregation=yearly&relative_to=1971');
    expect(state.view).toBe('warming_level');
    expect(queryFromState(state)).toBe('city=4887398&view=warming_level&indicator=frost_days&dataset=NEX-GDDP&time_aggregation=yearly&relative_to=1971');
    expect(indicatorPath(state, 'RCP45', 'csv', undefined, '1.0,1.5,2.0')).toBe(
      '/api/climate-data/4887398/RCP45/indicator/frost_days/?agg=10th%2Cmedian%2C90th&dataset=NEX-GDDP&warming_level=1.0%2C1.5%2C2.0&relative_to=1971&format=csv',
    );
    expect(stateFromQuery('view=other').view).toBe('time');
    const listing = {
      levels: ['1.0', '1.5', '2.0', '3.0', '4.0'],
      datasets: [{ name: 'NEX-GDDP', scenarios: [{ name: 'RCP45', reaching_in_data: { '1.0': 19, '1.5': 19, '2.0': 15, '3.0': 4, '4.0': 0 } }] }],
    };
    expect(levelsReached(listing, 'NEX-GDDP', 'RCP45')).toEqual(['1.0', '1.5', '2.0', '3.0']);
    expect(levelsReached(listing, 'NEX-GDDP', 'RCP85')).toEqual([]);
  });
});

describe('the indicators the view offers', () => {
  const byName = (name: string) => INDICATORS.find((i) => i.name === name)!;
  const datasets = [
    { name: 'NEX-GDDP', variables: ['tasmax', 'tasmin', 'pr'] },
    { name: 'NEX-GDDP-CMIP6', variables: ['tasmax', 'tasmin', 'pr', 'tas', 'hurs', 'huss'] },
    { name: 'LOCA2' },
  ];
  it('offers the humid-heat indicators where the dataset has their inputs, and says why not elsewhere', () => {
    expect(missingInputs(byName('max_heat_index'), datasets[1]!)).toEqual([]);
    expect(inputsNote(byName('max_heat_index'), datasets[1]!, datasets)).toBeUndefined();
    expect(missingInputs(byName('max_heat_index'), datasets[0]!)).toEqual(['huss']);
    expect(inputsNote(byName('max_wet_bulb_temperature'), datasets[2]!, datasets)).toBe(
      'Maximum Wet-Bulb Temperature needs tas and hurs; LOCA2 has no tas and hurs. Choose NEX-GDDP-CMIP6 to see it.',
    );
    for (const d of datasets) expect(missingInputs(byName('frost_days'), d)).toEqual([]);
  });
});
