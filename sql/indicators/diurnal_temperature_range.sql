-- Mean of the daily difference between high and low temperature; units are a temperature difference.
-- Whole-month periods divide the months' exact sums by their days; offset years and custom spans read the days.
WITH per_model AS (
  FROM months_per_model(temperature_delta_from_k(fsum(sum_dtr) / sum(n_dtr), getvariable('units')),
                        temperature_delta_from_k(favg(tasmax - tasmin), getvariable('units')),
                        getvariable('time_aggregation'), getvariable('baseline_years'))
)
FROM period_stats('per_model')
