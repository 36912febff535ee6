-- The labels of an export's long rows (dataset, scenario, models, variables or indicators,
-- locations) as one ENUM type, which its string columns are cast to: DuckDB's Parquet writer
-- takes an ENUM's dictionary as it is, where it hashes every VARCHAR value of a row (a raw
-- Parquet export's CPU time halved). Readers see strings. Made again for each export file.
-- $labels VARCHAR[]: every label a row of the file may hold.
CREATE OR REPLACE TYPE export_label AS ENUM (SELECT DISTINCT unnest($labels::VARCHAR[]) ORDER BY 1)
