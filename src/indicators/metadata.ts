// Indicator labels/descriptions/parameter docs are the original service's strings, from shared/reference/indicators.md (§2.3, §3.1, Appendix A).

export interface IndicatorParamDoc {
  name: string;
  description: string;
  required: boolean;
  default?: string | number;
}

export interface IndicatorMeta {
  name: string;
  label: string;
  description: string;
  variables: string[];
  /** A derived quantity's formula and its source, for the indicators that compute one from several variables. */
  formula?: { text: string; source: string };
  defaultUnits: string;
  availableUnits: string[];
  parameters: IndicatorParamDoc[];
}

export const VALID_AGGREGATIONS = ['yearly', 'quarterly', 'monthly', 'offset_yearly', 'custom', 'decadal', 'window'] as const;

// ---- Common parameter descriptions (exact text from Appendix A) ----
const AGG_DESC =
  "A list of comma separated aggregation types to return. Valid choices are 'min', 'max', 'avg', 'median', 'stddev', 'stdev', and 'XXth'. If using 'XXth', replace the XX with a number between 1-99 to return that percentile. For example, '99th' returns the value of the 99th percentile. The 'XXth' option can be provided multiple times with different values. 'stdev' is an alias to 'stddev'. Defaults to 'min,max,avg'.";
const CUSTOM_TIME_AGG_DESC =
  "Used in conjunction with the 'custom' time_aggregation value. A list of comma separated month-day pairs defining the time intervals to aggregate within. Data points will only be assigned to one aggregation, and for overlapping intervals the interval defined first will take precedence. Dates are formmatted MM-DD and pairs are formatted 'start:end'. Examples: '3-1:5-31', '1-1:6-30,7-1:12-31'";
const DATASET_DESC =
  'A single value defining which provider to use for raw climate data. If not provided, defaults to NEX-GDDP.';
const MODELS_DESC =
  'A list of comma separated model names to filter the indicator by. The indicator values in the response will only use the selected models. If not provided, defaults to all models.';
// Extended beyond the original's text: decadal and window are this service's additions.
const TIME_AGGREGATION_DESC =
  "Time granularity to group data by for result structure. Valid aggregations depend on indicator. Can be 'yearly', 'offset_yearly', 'quarterly', 'monthly', 'custom', 'decadal' or 'window'. Defaults to 'yearly'. If 'custom', 'custom_time_agg' parameter must be set. 'decadal' (periods '2010-2019') and 'window' (periods '2021-2050', with the 'windows' parameter) give, per model, the mean of its yearly values over the requested and available years of each span, then the statistics across models.";
const WINDOWS_DESC =
  "Used in conjunction with the 'window' time_aggregation value, and required with it. A list of comma separated year spans 'start:end' (inclusive; at most 20; overlaps allowed, each span computed on its own). Example: '2021:2050,2041:2070,2071:2100'";
const RELATIVE_TO_DESC =
  "Answer the change against a baseline: the start year of a historic range (e.g. '1971'; see the historic ranges endpoint) or a span 'start:end' of at least 10 years within the historical scenario's years. Each model's baseline is its mean, from the historical data of the same place and dataset, of the same kind of period over the baseline years (the yearly value, or the same month, quarter or custom span); each model's value becomes the change from it (see 'change'), then the statistics are taken across models.";
const CHANGE_DESC =
  "Used with 'relative_to': 'absolute' (value - baseline, in the requested units) or 'percent' (100 x (value - baseline) / baseline; models whose baseline is 0 are left out). Defaults to 'absolute'.";
const WARMING_LEVEL_DESC =
  "Answer at global warming levels instead of years: one or several of 1.0, 1.5, 2.0, 3.0, 4.0 (°C above 1850-1900), comma-separated; not with 'years', 'decadal' or 'window'. Each model's values are its mean over its own 20-year window crossing the level in the scenario (the IPCC AR6 Atlas tables, see the warming levels endpoint; a window that starts before the scenario takes those years from the model's historical run), per month, quarter or custom span of the year for those time aggregations; the statistics are taken across the models that reach the level. The answer is keyed by level and says which models were used with their windows, which did not reach the level and which the tables lack; each value has its model_count.";
const POOL_SCENARIOS_DESC =
  "Used with 'warming_level': 'true' pools every future scenario of the dataset, as the IPCC Atlas does (a model counts once per scenario in which it reaches the level); 'false' (the default) uses the requested scenario alone.";
const UNITS_DESC =
  'Units in which to return the data. Defaults to Imperial units (Fahrenheit for temperature indicators and inches for precipitation).';
const YEARS_DESC =
  "A list of comma separated year ranges to filter the response by. Defaults to all years available. A year range is of the form 'start[:end]'. Examples: '2010', '2010:2020', '2010:2020,2030', '2010:2020,2030:2040'";

// ---- Indicator-specific parameter descriptions (§3.1) ----
// Deliberate fix: original says "[0,100]"; this service accepts 1..99.
const percentileDesc = (d: number): string =>
  `The percentile threshold used to determine the appropriate comparative level of an event or measurement. Must be an integer in the range [1,99]. Defaults to ${d}`;
const HISTORIC_RANGE_DESC =
  'The 30 year range of past years used to define the historic norm. Get the available options by querying the historic ranges endpoint. Defaults to the most recent period in the historical data.';
const BASETEMP_DESC =
  "The base temperature used to calculate the daily difference for degree days summations. Defaults to 65. See the 'basetemp_units' for a discussion of the units this value uses.";
const BASETEMP_UNITS_DESC = "Units for the value of the 'basetemp' parameter. Defaults to 'F'.";
const THRESHOLD_DESC =
  "Required. The value against which to compare climate data values in the unit specified by the 'threshold_units' parameter.";
const THRESHOLD_COMPARATOR_DESC =
  "Required. The comparison type against the value of the 'threshold' parameter. Options: lt, gt, lte, gte. Signify: less than, greater than, less than or equals...";
const thresholdUnitsDesc = (units: readonly string[]): string =>
  `Required. Units for the value of the 'threshold' parameter. Must be a valid unit recognized by the API. Options: [${units
    .map((u) => `'${u}'`)
    .join(', ')}]`;

// ---- This service's additions: n-day totals and return levels ----
const N_DESC = 'The number of consecutive days whose precipitation is totalled: an integer from 2 to 10. Defaults to 5 (Rx5day).';

const RETURN_PERIOD_DESC =
  "Answer return levels instead of periods: one or several return periods in years, integers from 2 to 200, comma-separated (e.g. '20,100'). Per model, a GEV distribution is fitted by L-moments (Hosking 1990) to the model's yearly extremes over the fitting window, and its N-year return level is taken (exceeded once in N years on average; for a minimum, the level undercut once in N years); then the statistics across models. The fitting window is the years of 'years' (at least 20 of the scenario's; by default its last 30) or, with 'historic_range', that 30-year range of the historical run, or, with 'warming_level', each model's own 20-year window at each level (the answer is then keyed by level, then return period, each with its model_count). time_aggregation must be yearly (calendar years) or offset_yearly. With 'relative_to' (a range or span of at least 20 years), each model's change in return level against its own fit over the baseline years, before the statistics. The answer is keyed by return period and names the fitting window.";
const BASELINE_RETURN_PERIOD_DESC =
  "Used with 'relative_to', in place of 'return_period': one or several return periods in years (integers from 2 to 200, comma-separated). Per model, the level of the baseline's N-year event (its fit over the relative_to years), then that level's return period in years under the model's fit over the fitting window: how often the baseline's event happens then. Return periods beyond 1,000 years are answered as 1,000, and the answer names the models capped. The answer is keyed by the baseline's return period; its values are years.";
const INCLUDE_DESC =
  "With 'return_period' or 'baseline_return_period': 'fit' adds each model's fitted GEV parameters (location and scale in the answer's units, shape k in Hosking's sign convention: k > 0 has an upper bound, k < 0 a heavy upper tail) over the fitting window and, with relative_to, over the baseline years.";

const DEFAULT_HISTORIC_RANGE = '1971';

function commonParams(defaultUnits: string): IndicatorParamDoc[] {
  return [
    { name: 'agg', description: AGG_DESC, required: false, default: 'min,max,avg' },
    { name: 'custom_time_agg', description: CUSTOM_TIME_AGG_DESC, required: false },
    { name: 'dataset', description: DATASET_DESC, required: false, default: 'NEX-GDDP' },
    { name: 'models', description: MODELS_DESC, required: false, default: 'all' },
    { name: 'time_aggregation', description: TIME_AGGREGATION_DESC, required: false, default: 'yearly' },
    { name: 'units', description: UNITS_DESC, required: false, default: defaultUnits },
    { name: 'years', description: YEARS_DESC, required: false, default: 'all' },
    { name: 'relative_to', description: RELATIVE_TO_DESC, required: false },
    { name: 'change', description: CHANGE_DESC, required: false, default: 'absolute' },
    { name: 'windows', description: WINDOWS_DESC, required: false },
    { name: 'warming_level', description: WARMING_LEVEL_DESC, required: false },
    { name: 'pool_scenarios', description: POOL_SCENARIOS_DESC, required: false, default: 'false' },
  ];
}

const percentileParam = (d: number): IndicatorParamDoc => ({
  name: 'percentile',
  description: percentileDesc(d),
  required: false,
  default: d,
});
const historicRangeParam = (): IndicatorParamDoc => ({
  name: 'historic_range',
  description: HISTORIC_RANGE_DESC,
  required: false,
  default: DEFAULT_HISTORIC_RANGE,
});
const basetempParams = (): IndicatorParamDoc[] => [
  { name: 'basetemp', description: BASETEMP_DESC, required: false, default: 65 },
  { name: 'basetemp_units', description: BASETEMP_UNITS_DESC, required: false, default: 'F' },
];
const thresholdParams = (units: readonly string[]): IndicatorParamDoc[] => [
  { name: 'threshold', description: THRESHOLD_DESC, required: true },
  { name: 'threshold_comparator', description: THRESHOLD_COMPARATOR_DESC, required: true },
  { name: 'threshold_units', description: thresholdUnitsDesc(units), required: true },
];

const nParam = (): IndicatorParamDoc => ({ name: 'n', description: N_DESC, required: false, default: 5 });

/** The indicators whose yearly extremes have return levels (return_period). */
const returnLevelParams = (): IndicatorParamDoc[] => [
  { name: 'return_period', description: RETURN_PERIOD_DESC, required: false },
  { name: 'baseline_return_period', description: BASELINE_RETURN_PERIOD_DESC, required: false },
  { name: 'include', description: INCLUDE_DESC, required: false },
];

const TEMP_UNITS = ['F', 'C', 'K'];
const DELTA_UNITS = ['C', 'F', 'K'];
const PR_RATE_UNITS = ['kg/m^2/s', 'mm/day', 'in/day'];
const PR_AMOUNT_UNITS = ['kg/m^2', 'mm', 'in'];

function ind(
  name: string,
  label: string,
  description: string,
  variables: string[],
  defaultUnits: string,
  availableUnits: string[],
  extra: IndicatorParamDoc[] = [],
): IndicatorMeta {
  const parameters = [...commonParams(defaultUnits), ...extra].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  return { name, label, description, variables, defaultUnits, availableUnits: [...availableUnits], parameters };
}

// ---- Humid heat (issue 38): the formulas as sql/indicators/macros.sql computes them ----
const WET_BULB = {
  text: 'Tw = T atan(0.151977 (RH + 8.313659)^0.5) + atan(T + RH) - atan(RH - 1.676331) + 0.00391838 RH^1.5 atan(0.023101 RH) - 4.686035 (deg C), T = tas in deg C, RH = hurs clipped to 0..100 %; fitted for RH 5-99 % and T -20..50 deg C at sea-level pressure, error -1..+0.65 deg C; daily means understate the afternoon wet-bulb temperature',
  source: 'Stull, R. (2011): Wet-Bulb Temperature from Relative Humidity and Air Temperature. J. Appl. Meteor. Climatol. 50, 2267-2269, doi:10.1175/JAMC-D-11-0143.1',
};
const HEAT_INDEX = {
  text: "HI = 0.5 (T + 61 + 1.2 (T - 68) + 0.094 RH) (deg F); where (HI + T)/2 >= 80: Rothfusz's regression -42.379 + 2.04901523 T + 10.14333127 RH - 0.22475541 T RH - 0.00683783 T^2 - 0.05481717 RH^2 + 0.00122874 T^2 RH + 0.00085282 T RH^2 - 0.00000199 T^2 RH^2, minus ((13 - RH)/4) ((17 - |T - 95|)/17)^0.5 where RH < 13 and 80 <= T <= 112, plus ((RH - 85)/10) ((87 - T)/5) where RH > 85 and 80 <= T <= 87. T = tasmax in deg F; RH = min(100, 100 e/es) with e = q p/(0.622 + 0.378 q), q = huss, p = 1013.25 hPa, es = 6.112 exp(17.67 t/(t + 243.5)) hPa at t = tasmax in deg C. No sun or wind term",
  source: 'US National Weather Service, The Heat Index Equation (wpc.ncep.noaa.gov/html/heatindex_equation.shtml), after Rothfusz (1990), NWS Technical Attachment SR 90-23; saturation vapour pressure: Bolton (1980), Mon. Wea. Rev. 108, 1046-1053',
};

/** An indicator computed from a formula of several variables, which its metadata names. */
function humid(name: string, label: string, description: string, variables: string[], formula: { text: string; source: string }, availableUnits: string[], extra: IndicatorParamDoc[]): IndicatorMeta {
  return { ...ind(name, label, description, variables, availableUnits[0] === 'days' ? 'days' : 'F', availableUnits, extra), formula };
}

/**
 * All 29 indicators: the original's 23, ordered by class name (as the list endpoint returns them),
 * this service's max_1day_precipitation and max_nday_precipitation in that order, then the four of
 * humid heat (NEX-GDDP-CMIP6's tas, hurs and huss).
 */
export const INDICATORS: IndicatorMeta[] = [
  ind(
    'accumulated_freezing_degree_days',
    'Accumulated Freezing Degree Days',
    'Maximum cumulative total of differences in average daily temperature and freezing for consecutive days across the aggregation period.',
    ['tasmax', 'tasmin'],
    'F',
    DELTA_UNITS,
  ),
  ind(
    'average_high_temperature',
    'Average High Temperature',
    'Aggregated average high temperature, generated from daily data using all requested models',
    ['tasmax'],
    'F',
    TEMP_UNITS,
  ),
  ind(
    'average_low_temperature',
    'Average Low Temperature',
    'Aggregated average low temperature, generated from daily data using all requested models',
    ['tasmin'],
    'F',
    TEMP_UNITS,
  ),
  ind(
    'cooling_degree_days',
    'Cooling Degree Days',
    'Total difference of daily average temperature to a reference base temperature ', // trailing space is original
    ['tasmax', 'tasmin'],
    'F',
    DELTA_UNITS,
    basetempParams(),
  ),
  ind(
    'diurnal_temperature_range',
    'Diurnal Temperature Range',
    'Average difference between daily max and daily min temperature',
    ['tasmax', 'tasmin'],
    'F',
    DELTA_UNITS,
  ),
  ind(
    'dry_spells',
    'Dry Spells',
    'Total number of times per period that there are 5 or more consecutive days without precipitation',
    ['pr'],
    'count',
    ['count'],
  ),
  ind(
    'extreme_cold_events',
    'Extreme Cold Events',
    'Total number of times per period daily minimum temperature is below the specified percentile of historic observations',
    ['tasmin'],
    'count',
    ['count'],
    [historicRangeParam(), percentileParam(1)],
  ),
  ind(
    'extreme_heat_events',
    'Extreme Heat Events',
    'Total number of times per period daily maximum temperature exceeds the specified percentile of historic observations',
    ['tasmax'],
    'count',
    ['count'],
    [historicRangeParam(), percentileParam(99)],
  ),
  ind(
    'extreme_precipitation_events',
    'Extreme Precipitation Events',
    'Total number of times per period daily average precipitation rate exceeds the specified percentile of historic observations',
    ['pr'],
    'count',
    ['count'],
    [historicRangeParam(), percentileParam(99)],
  ),
  ind(
    'frost_days',
    'Frost Days',
    'Number of days per period in which the daily low temperature is below the freezing point of water',
    ['tasmin'],
    'days',
    ['days'],
  ),
  ind(
    'heat_wave_duration_index',
    'Heat Wave Duration Index',
    'Maximum period of consecutive days with daily high temperature greater than 5C above historic norm',
    ['tasmax'],
    'days',
    ['days'],
    [historicRangeParam()],
  ),
  ind(
    'heat_wave_incidents',
    'Heat Wave Incidents',
    'Number of times daily high temperature exceeds 5C above historic norm for at least 5 consecutive days',
    ['tasmax'],
    'count',
    ['count'],
    [historicRangeParam()],
  ),
  ind(
    'heating_degree_days',
    'Heating Degree Days',
    'Total difference of daily average temperature to a reference base temperature',
    ['tasmax', 'tasmin'],
    'F',
    DELTA_UNITS,
    basetempParams(),
  ),
  ind(
    'max_1day_precipitation',
    'Maximum 1-Day Precipitation',
    'Largest precipitation of a single day (Rx1day), generated from daily data using all requested models',
    ['pr'],
    'in',
    PR_AMOUNT_UNITS,
    returnLevelParams(),
  ),
  ind(
    'max_consecutive_dry_days',
    'Max Consecutive Dry Days',
    'Maximum number of consecutive days with no precipitation',
    ['pr'],
    'days',
    ['days'],
  ),
  ind(
    'max_high_temperature',
    'Maximum High Temperature',
    'Maximum high temperature, generated from daily data using all requested models',
    ['tasmax'],
    'F',
    TEMP_UNITS,
    returnLevelParams(),
  ),
  ind(
    'max_nday_precipitation',
    'Maximum N-Day Precipitation',
    'Largest precipitation total of n consecutive days (Rx5day by default) whose last day falls in the period, generated from daily data using all requested models',
    ['pr'],
    'in',
    PR_AMOUNT_UNITS,
    [nParam(), ...returnLevelParams()],
  ),
  ind(
    'max_temperature_threshold',
    'Max Temperature Threshold',
    'Number of days where high temperature, generated from daily data using all requested models, fulfils the comparison',
    ['tasmax'],
    'days',
    ['days'],
    thresholdParams(TEMP_UNITS),
  ),
  ind(
    'min_low_temperature',
    'Minimum Low Temperature',
    'Minimum low temperature, generated from daily data using all requested models',
    ['tasmin'],
    'F',
    TEMP_UNITS,
    returnLevelParams(),
  ),
  ind(
    'min_temperature_threshold',
    'Min Temperature Threshold',
    'Number of days where min temperature, generated from daily data using all requested models, fulfils the comparison',
    ['tasmin'],
    'days',
    ['days'],
    thresholdParams(TEMP_UNITS),
  ),
  ind(
    'percentile_high_temperature',
    'Percentile High Temperature',
    'The specified percentile of high temperature for each timespan. Defaults to 50th percentile (Median)',
    ['tasmax'],
    'F',
    TEMP_UNITS,
    [percentileParam(50)],
  ),
  ind(
    'percentile_low_temperature',
    'Percentile Low Temperature',
    'The specified percentile of low temperature for each timespan. Defaults to 50th percentile (Median)',
    ['tasmin'],
    'F',
    TEMP_UNITS,
    [percentileParam(50)],
  ),
  ind(
    'percentile_precipitation',
    'Percentile Precipitation',
    'The specified percentile of precipitation rate for each timespan. Defaults to 50th percentile (Median)',
    ['pr'],
    'in/day',
    PR_RATE_UNITS,
    [percentileParam(50)],
  ),
  ind(
    'precipitation_threshold',
    'Precipitation Threshold',
    'Number of days where precipitation rate, generated from daily data using all requested models, fulfils the comparison',
    ['pr'],
    'days',
    ['days'],
    thresholdParams(PR_RATE_UNITS),
  ),
  ind('total_precipitation', 'Total Precipitation', 'Total precipitation', ['pr'], 'in', PR_AMOUNT_UNITS),
  humid(
    'max_wet_bulb_temperature',
    'Maximum Wet-Bulb Temperature',
    "Highest daily wet-bulb temperature of the period, from each day's mean temperature (tas) and mean relative humidity (hurs), generated from daily data using all requested models that have both",
    ['tas', 'hurs'],
    WET_BULB,
    TEMP_UNITS,
    returnLevelParams(),
  ),
  humid(
    'wet_bulb_temperature_threshold',
    'Wet-Bulb Temperature Threshold',
    "Number of days whose wet-bulb temperature (from the day's mean temperature and mean relative humidity) fulfils the comparison, generated from daily data using all requested models that have tas and hurs",
    ['tas', 'hurs'],
    WET_BULB,
    ['days'],
    thresholdParams(TEMP_UNITS),
  ),
  humid(
    'max_heat_index',
    'Maximum Heat Index',
    "Highest daily heat index of the period (US National Weather Service), from each day's high temperature (tasmax) and the relative humidity its specific humidity (huss) gives at that temperature, generated from daily data using all requested models that have huss",
    ['tasmax', 'huss'],
    HEAT_INDEX,
    TEMP_UNITS,
    returnLevelParams(),
  ),
  humid(
    'heat_index_threshold',
    'Heat Index Threshold',
    "Number of days whose heat index (US National Weather Service, from the day's high temperature and specific humidity) fulfils the comparison, generated from daily data using all requested models that have huss",
    ['tasmax', 'huss'],
    HEAT_INDEX,
    ['days'],
    thresholdParams(TEMP_UNITS),
  ),
];
