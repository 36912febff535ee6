-- Heat wave incidents: runs of 5 or more days with a high temperature more than 5 K above the
-- historic daily mean (norm: the daily climatology of 'historic_file' over 'historic_start'..'historic_end').
WITH per_model AS (
  FROM spells_per_model('heat', runs5, tasmax > norm + 5,
                        getvariable('time_aggregation'), getvariable('baseline_years'))
)
FROM period_stats('per_model')
