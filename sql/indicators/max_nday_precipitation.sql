-- Largest precipitation total of n consecutive days (variable 'n', 2..10; Rx5day for 5) whose last
-- day falls in the period, per model: the run may start in the period before (nday_totals).
-- Units kg/m^2, mm or in. Whole-month periods take the greatest of the months' maxima (rx<n>day of
-- the monthly summaries, n 2..10); offset years and custom spans read the days.
WITH per_model AS (
  FROM nday_months_per_model(precipitation_amount_from_si(max(COLUMNS('^rx' || getvariable('n') || 'day$')) * 86400.0, getvariable('units')),
                             precipitation_amount_from_si(max(total) * 86400.0, getvariable('units')),
                             getvariable('time_aggregation'), getvariable('baseline_years'))
)
FROM period_stats('per_model')
