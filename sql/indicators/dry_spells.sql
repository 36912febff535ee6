-- Dry spells: runs of 5 or more consecutive days with no precipitation (pr = 0) per period and model.
-- Whole-month periods join the months' run summaries; offset years and custom spans read the days.
WITH per_model AS (
  SELECT period, model, CASE WHEN n > 0 THEN runs5 END AS value
  FROM period_runs(getvariable('time_aggregation'), 'dry', getvariable('historic_start'), getvariable('baseline_years'))
  UNION ALL
  SELECT period, model, len(list_filter(run_lengths(in_date_order(list({'date': date, 'flag': pr = 0}) FILTER (WHERE pr IS NOT NULL))), n -> n >= 5)) AS value
  FROM month_cutting_days(getvariable('time_aggregation'))
  GROUP BY period, model
)
FROM period_stats('per_model')
