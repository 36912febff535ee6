-- Heat wave incidents: runs of 5 or more days with a high temperature more than 5 K above the historic daily mean
-- (the daily climatology of 'historic_file' over 'historic_start'..'historic_end', matched by day of year).
-- Whole-month periods join the months' run summaries (built for each historic range); offset years
-- and custom spans read the days.
WITH norms AS (
  FROM historic_daily_tasmax(getvariable('historic_file'), getvariable('historic_start'), getvariable('historic_end'))
  WHERE NOT whole_months(getvariable('time_aggregation'))
),
per_model AS (
  SELECT period, model, runs5 AS value
  FROM period_runs(getvariable('time_aggregation'), 'heat', getvariable('historic_start'), getvariable('baseline_years'))
  UNION ALL
  SELECT period, model, len(list_filter(run_lengths(in_date_order(list({'date': d.date, 'flag': tasmax > norm + 5}))), n -> n >= 5)) AS value
  FROM month_cutting_days(getvariable('time_aggregation')) AS d
  JOIN norms ON norms.slot = dayofyear(d.date) - 1
  WHERE tasmax IS NOT NULL
  GROUP BY period, model
)
FROM period_stats('per_model')
