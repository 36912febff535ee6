-- Longest run of consecutive days without precipitation (not pr > 0) per period and model; 0 if none.
-- Whole-month periods join the months' run summaries; offset years and custom spans read the days.
WITH per_model AS (
  SELECT period, model, longest AS value
  FROM period_runs(getvariable('time_aggregation'), 'not_wet', getvariable('historic_start'), getvariable('baseline_years'))
  UNION ALL
  SELECT period, model, coalesce(list_max(run_lengths(in_date_order(list({'date': date, 'flag': NOT (pr > 0)}) FILTER (WHERE pr IS NOT NULL)))), 0) AS value
  FROM month_cutting_days(getvariable('time_aggregation'))
  GROUP BY period, model
)
FROM period_stats('per_model')
