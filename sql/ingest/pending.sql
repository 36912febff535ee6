-- Every staged value with its scenario, model and variable, sorted by partition so that each
-- partition's rebuild reads only its own row groups.
CREATE OR REPLACE TABLE pending AS
SELECT s.scenario, t.cell_id, s.model, s.variable, t.day, t.value, t.source
FROM staged t JOIN source s ON s.id = t.source
ORDER BY s.scenario, t.cell_id, s.model, t.day
