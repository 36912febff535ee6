import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../config.js';

const SQL_DIR = path.join(ROOT, 'sql');
const cache = new Map<string, string>();

/** Text of a statement kept in sql/, e.g. sqlFile('catalog/load.sql'). Read once per process. */
export function sqlFile(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = fs.readFileSync(path.join(SQL_DIR, name), 'utf8');
    cache.set(name, text);
  }
  return text;
}

/** A string literal for the few places DuckDB takes no parameter (COPY targets, ATTACH paths). */
export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
