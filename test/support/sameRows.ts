import { listValue, type DuckDBConnection } from '@duckdb/node-api';
import { expect } from 'vitest';
import { readRows } from '../../src/db/duckdb.js';

/** What rowDifferences finds for one pair of Parquet files. */
export interface PairDifference {
  /** Rows in the first file. */
  rows: number;
  /** Rows of either file that the other lacks, as multisets (EXCEPT ALL both ways). */
  diff: number;
  /** The first file's columns (name and type) when the second's differ, else null. */
  schema: { a: string[]; b: string[] } | null;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Compares pairs of Parquet files row by row in three statements, whatever their number: a
 * statement per pair cost about 0.1 s of CPU (its hash tables set up for a few hundred rows),
 * 10 s for the 99 partitions of the suite's build. Pairs may hold files of different schemas
 * (read by name, the columns a file lacks are NULL for it); each pair's columns are compared too.
 */
export async function rowDifferences(conn: DuckDBConnection, pairs: [string, string][]): Promise<PairDifference[]> {
  if (pairs.length === 0) return [];
  const a = pairs.map(([x]) => x);
  const b = pairs.map(([, y]) => y);
  // A file's rows are told apart by its name: twice on one side, its rows would count twice.
  for (const side of [a, b]) if (new Set(side).size < side.length) throw new Error('rowDifferences: a file is in two pairs on the same side');
  // Each file's schema as Parquet lists it: its root, then every column depth first (a nested
  // column's children after it); the root's children are the file's columns.
  const schemaRows = await readRows<{ file_name: string; name: string; type: string | null; num_children: number | null }>(
    conn,
    `SELECT file_name, name, coalesce(logical_type::VARCHAR, converted_type, type) AS type, num_children::INTEGER AS num_children FROM parquet_schema($files)`,
    { files: listValue([...new Set([...a, ...b])]) },
  );
  const schemaOf = new Map<string, typeof schemaRows>();
  for (const r of schemaRows) schemaOf.set(r.file_name, [...(schemaOf.get(r.file_name) ?? []), r]);
  const columnsOf = new Map<string, string[]>();
  const names = new Set<string>();
  for (const [file, rows] of schemaOf) {
    columnsOf.set(file, rows.slice(1).map((r) => `${r.name} ${r.type} ${r.num_children ?? 0}`));
    // The root's children: skip each column's descendants.
    let i = 1;
    const skip = (): void => {
      const children = rows[i++]!.num_children ?? 0;
      for (let c = 0; c < children; c++) skip();
    };
    while (i < rows.length) {
      names.add(rows[i]!.name);
      skip();
    }
  }
  const select = (list: string) =>
    `SELECT list_position($${list}, filename)::INTEGER AS pair, ${[...names].map(quoted).join(', ')} FROM read_parquet($${list}, filename = true, union_by_name = true)`;
  const counts = await readRows<{ pair: number; rows: number; diff: number }>(
    conn,
    `WITH a AS (${select('a')}), b AS (${select('b')}),
          d AS ((FROM a EXCEPT ALL FROM b) UNION ALL (FROM b EXCEPT ALL FROM a)),
          n AS (SELECT pair, count(*) AS rows FROM a GROUP BY pair),
          m AS (SELECT pair, count(*) AS diff FROM d GROUP BY pair)
     SELECT pair, coalesce(n.rows, 0)::INTEGER AS rows, coalesce(m.diff, 0)::INTEGER AS diff FROM n FULL JOIN m USING (pair)`,
    { a: listValue(a), b: listValue(b) },
  );
  const byPair = new Map(counts.map((c) => [c.pair, c]));
  return pairs.map(([x, y], i) => {
    const [sa, sb] = [columnsOf.get(x) ?? [], columnsOf.get(y) ?? []];
    const c = byPair.get(i + 1);
    return { rows: c?.rows ?? 0, diff: c?.diff ?? 0, schema: sa.join('\n') === sb.join('\n') ? null : { a: sa, b: sb } };
  });
}

/** Each pair holds the same rows (some), under the same schema: a failure names the pair's first file. */
export async function expectSameRows(conn: DuckDBConnection, pairs: [string, string][]) {
  const found = await rowDifferences(conn, pairs);
  for (const [i, [a]] of pairs.entries()) expect({ file: a, ...found[i]!, rows: found[i]!.rows > 0 }).toEqual({ file: a, rows: true, diff: 0, schema: null });
}
