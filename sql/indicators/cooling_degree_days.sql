-- Sum over the days of (daily mean temperature - base), for days above the base ('basetemp', K).
-- Whole-month periods at the base the monthly summaries hold (65 F, 291.4833333333334 K: the
-- default) add up the months' sums; other bases, offset years and custom spans read the days.
WITH per_model AS (
  FROM months_per_model(temperature_delta_from_k(coalesce(fsum(cooling_65f), 0), getvariable('units')),
                        temperature_delta_from_k(coalesce(fsum((tasmax + tasmin) / 2 - getvariable('basetemp')) FILTER (WHERE (tasmax + tasmin) / 2 > getvariable('basetemp')), 0), getvariable('units')),
                        summarised_agg(getvariable('time_aggregation'), getvariable('basetemp') = 291.4833333333334::DOUBLE),
                        getvariable('baseline_years'))
)
FROM period_stats('per_model')
