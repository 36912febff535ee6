import fs from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { ROOT } from '../src/config.js';

/** sql/indicators/cli-session.sql, the analyst's DuckDB CLI session docs/indicators.md documents. */
export const CLI_SESSION = fs.readFileSync(path.join(ROOT, 'sql', 'indicators', 'cli-session.sql'), 'utf8');

/**
 * Runs a DuckDB CLI script the way the CLI does (statements in order, `.read` includes a file,
 * relative to the repository root) and returns the last statement's rows. The CLI binary itself
 * is not installable here; `.read` is the one dot command the session uses.
 */
export async function runCliScript(conn: DuckDBConnection, text: string): Promise<Record<string, unknown>[]> {
  let last: Record<string, unknown>[] = [];
  let pending = '';
  for (const line of text.split('\n')) {
    const read = /^\.read\s+(\S+)\s*$/.exec(line.trim());
    if (read) {
      last = await runCliScript(conn, fs.readFileSync(path.join(ROOT, read[1]!), 'utf8'));
      continue;
    }
    pending += line + '\n';
    if (line.trim().endsWith(';') || line === text.split('\n').at(-1)) {
      if (pending.replace(/--.*$/gm, '').trim()) last = (await conn.runAndReadAll(pending)).getRowObjectsJS();
      pending = '';
    }
  }
  if (pending.replace(/--.*$/gm, '').trim()) last = (await conn.runAndReadAll(pending)).getRowObjectsJS();
  return last;
}

/** The period -> statistic map of a template's rows, as the API's `data`. */
export function cliData(rows: Record<string, unknown>[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const r of rows as { period: string; stats: { entries?: { key: string; value: number }[] } | { key: string; value: number }[] }[]) {
    const entries = Array.isArray(r.stats) ? r.stats : r.stats.entries!;
    out[r.period] = Object.fromEntries(entries.map((e) => [e.key, e.value]));
  }
  return out;
}
