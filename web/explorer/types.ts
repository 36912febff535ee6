/** The shapes of the API answers the page reads (see the OpenAPI document at /openapi.json). */

export interface CityFeature {
  id: number;
  geometry: { type: 'Point'; coordinates: [number, number] };
  properties: { name: string; admin: string; population: number; datasets: string[]; region: number };
}

export interface CityPage {
  count: number;
  next: string | null;
  features: CityFeature[];
}

export interface IndicatorParam {
  name: string;
  description: string;
  required: boolean;
  default?: string | number;
}

export interface Indicator {
  name: string;
  label: string;
  description: string;
  valid_aggregations: string[];
  /** Its input variables (tas, hurs and huss are NEX-GDDP-CMIP6's only). */
  variables: string[];
  available_units: string[];
  default_units: string;
  parameters: IndicatorParam[];
}

export interface HistoricRange {
  start_year: number;
  end_year: number;
}

export interface Dataset {
  name: string;
  label: string;
  scenarios: { name: string; start_year: number; end_year: number }[];
  historic_ranges: HistoricRange[];
  /** Its daily variables (absent from an older server: tasmax, tasmin, pr). */
  variables?: string[];
}

/** period label -> statistic -> value; the API leaves out periods without data. */
export type IndicatorData = Record<string, Record<string, number | null>>;

export interface IndicatorAnswer {
  scenario: string;
  units: string;
  time_aggregation: string;
  data: IndicatorData;
}
