-- Every staged value with its scenario, model and variable, grouped by partition so that each
-- partition's rebuild reads only its own row groups. In an attached in-memory database: derived,
-- never needed after a restart, kept out of the staging file, and seen by every connection.
ATTACH IF NOT EXISTS ':memory:' AS work;
CREATE OR REPLACE TABLE work.pending AS
SELECT s.scenario, t.cell_id, s.model, s.variable, t.day, t.value, t.source
FROM staged t JOIN source s ON s.id = t.source
ORDER BY s.scenario, t.cell_id
