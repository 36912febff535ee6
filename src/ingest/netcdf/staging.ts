import fs from 'node:fs';
import path from 'node:path';
import { DuckDBDataChunk, FLOAT, INTEGER, type DuckDBConnection } from '@duckdb/node-api';
import { Database } from '../../db/duckdb.js';
import { CELL_PARQUET } from '../../climate/files.js';
import { readRows } from '../../db/duckdb.js';
import { sqlFile, sqlString } from '../../db/sqlFiles.js';
import type { FileExtract } from './extract.js';
import { IngestError } from './ingestError.js';

/** Identifies a source file's content and the cells asked of it: a staged file is reused only if all match. */
export interface SourceKey {
  path: string;
  size: number;
  mtime: number;
  cellsKey: string;
}

/** Ingested days with tasmin above tasmax, for one tasmin file (sql/ingest/inverted_days.sql). */
export interface InvertedDays {
  model: string;
  scenario: string;
  tasmin_file: string;
  tasmax_file: string;
  /** (cell, date) pairs. */
  cell_days: number;
  dates: number;
  first_date: string;
  /** Largest tasmin - tasmax, K. */
  max_excess: number;
}

export interface Partition {
  scenario: string;
  cellId: number;
}

/**
 * The staging database of one ingest: per-file extracts land here as they are read (memory stays
 * one file's extract), and survive a killed run, so the next run of the same command skips the files
 * already read. Partitions are rebuilt from it at the end, each once.
 */
export class Staging {
  private constructor(
    readonly file: string,
    private db: Database,
    readonly conn: DuckDBConnection,
  ) {}

  static async open(dataDir: string, dataset: string): Promise<Staging> {
    const dir = path.join(dataDir, 'ingest-staging');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${dataset}.duckdb`);
    let db: Database;
    try {
      db = await Database.open(file, { threads: '2', memory_limit: '512MB' });
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      throw new IngestError(
        /lock/i.test(msg)
          ? `another ingest of ${dataset} into ${dataDir} is running (its staging database ${file} is locked); wait for it to finish`
          : `cannot open the staging database ${file}: ${msg}`,
      );
    }
    const conn = await db.connect();
    await conn.run(sqlFile('ingest/staging_schema.sql'));
    return new Staging(file, db, conn);
  }

  /**
   * Drops staged files this run does not ask for (another SRC, changed files, other POINTS), so
   * that only the files of the command being run reach the partitions. Returns how many.
   */
  async retainOnly(keys: SourceKey[]): Promise<number> {
    const wanted = new Set(keys.map((k) => JSON.stringify([k.path, k.size, k.mtime, k.cellsKey])));
    const rows = await readRows<{ id: number; path: string; size: number; mtime: number; cells_key: string }>(
      this.conn,
      'SELECT id, path, size::DOUBLE AS size, mtime, cells_key FROM source',
    );
    const stale = rows.filter((r) => !wanted.has(JSON.stringify([r.path, r.size, r.mtime, r.cells_key])));
    for (const { id } of stale) {
      await this.conn.run('DELETE FROM source WHERE id = $id', { id });
      await this.conn.run('DELETE FROM staged WHERE source = $id', { id });
    }
    return stale.length;
  }

  /** Whether this exact file was already read for these cells. */
  async staged(key: SourceKey): Promise<boolean> {
    const rows = await readRows<{ n: number }>(
      this.conn,
      'SELECT count(*)::INTEGER AS n FROM source WHERE path = $path AND size = $size AND mtime = $mtime AND cells_key = $cells',
      { path: key.path, size: key.size, mtime: key.mtime, cells: key.cellsKey },
    );
    return rows[0]!.n > 0;
  }

  /** Stages one file's extract, replacing an earlier one of the same path. Returns the rows written. */
  async stage(key: SourceKey, x: FileExtract): Promise<number> {
    const old = await readRows<{ id: number }>(this.conn, 'SELECT id FROM source WHERE path = $path', { path: key.path });
    for (const { id } of old) {
      await this.conn.run('DELETE FROM source WHERE id = $id', { id });
      await this.conn.run('DELETE FROM staged WHERE source = $id', { id });
    }
    const id = (await readRows<{ id: number }>(this.conn, 'SELECT (coalesce(max(id), 0) + 1)::INTEGER AS id FROM source'))[0]!.id;
    const days = x.days;
    const first = days.length > 0 ? days[0]! : null;
    const last = days.length > 0 ? days[days.length - 1]! : null;
    let rows = 0;
    if (first !== null && last !== null) {
      // Whole data chunks rather than value-by-value appends: twice the rows per second.
      const appender = await this.conn.createAppender('staged');
      const size = 2048;
      const cols: [number[], number[], number[], (number | null)[]] = [[], [], [], []];
      const flush = () => {
        const chunk = DuckDBDataChunk.create([INTEGER, INTEGER, INTEGER, FLOAT], cols[0].length);
        chunk.setColumns(cols);
        appender.appendDataChunk(chunk);
        for (const c of cols) c.length = 0;
      };
      for (const [cellId, values] of x.series) {
        // Every date from the file's first to its last, so the days its calendar lacks replace old values too.
        let k = 0;
        for (let day = first; day <= last; day++) {
          let v: number | null = null;
          if (days[k] === day) {
            const value = values[k++]!;
            if (!Number.isNaN(value)) v = value;
          }
          cols[0].push(id);
          cols[1].push(cellId);
          cols[2].push(day);
          cols[3].push(v);
          if (cols[0].length === size) flush();
          rows++;
        }
      }
      if (cols[0].length > 0) flush();
      appender.flushSync();
      appender.closeSync();
    }
    // Written last: a run killed before this line leaves staged rows that the next run drops.
    await this.conn.run(
      `INSERT INTO source VALUES ($id, $path, $size, $mtime, $cells, $variable, $model, $scenario, $first, $last, $n)`,
      {
        id, path: key.path, size: key.size, mtime: key.mtime, cells: key.cellsKey,
        variable: x.variable, model: x.model, scenario: x.scenario, first, last, n: rows,
      },
    );
    return rows;
  }

  /** Sorts the staged values by partition; returns the partitions to rebuild. */
  async partitions(): Promise<Partition[]> {
    await this.conn.run(sqlFile('ingest/pending.sql'));
    const rows = await readRows<{ scenario: string; cell_id: number }>(
      this.conn,
      'SELECT DISTINCT scenario, cell_id FROM work.pending ORDER BY scenario, cell_id',
    );
    return rows.map((r) => ({ scenario: r.scenario, cellId: r.cell_id }));
  }

  /** Staged days where tasmin > tasmax; after partitions() (which sorts the staged values). */
  async invertedDays(): Promise<InvertedDays[]> {
    return readRows<InvertedDays>(this.conn, sqlFile('ingest/inverted_days.sql'));
  }

  /** Per scenario, the first and last staged year. */
  async yearRanges(): Promise<Map<string, [number, number]>> {
    const rows = await readRows<{ scenario: string; y0: number; y1: number }>(
      this.conn,
      `SELECT scenario, year(DATE '1970-01-01' + min(first_day))::INTEGER AS y0, year(DATE '1970-01-01' + max(last_day))::INTEGER AS y1
       FROM source WHERE first_day IS NOT NULL GROUP BY scenario`,
    );
    return new Map(rows.map((r) => [r.scenario, [r.y0, r.y1]]));
  }

  async sources(): Promise<{ path: string; size: number }[]> {
    return readRows(this.conn, 'SELECT path, size::DOUBLE AS size FROM source ORDER BY path');
  }

  /**
   * Rebuilds one partition file from its previous content and the staged values: written to a
   * temporary file next to it and renamed over it, so a reader (or a kill) sees the old file or the
   * new one, never a partial one. Returns the rows written (0: nothing written).
   */
  async rebuild(partitionFile: string, p: Partition, conn: DuckDBConnection = this.conn): Promise<number> {
    const hadPrevious = fs.existsSync(partitionFile);
    // {{previous}} takes one of two fixed texts; values are bound parameters.
    const previous = hadPrevious
      ? 'read_parquet($previous)'
      : '(SELECT NULL::VARCHAR AS model, NULL::DATE AS date, NULL::FLOAT AS tasmax, NULL::FLOAT AS tasmin, NULL::FLOAT AS pr WHERE false)';
    const select = sqlFile('ingest/merge_partition.sql').replace('{{previous}}', previous);
    const tmp = `${partitionFile}.tmp-${process.pid}`;
    fs.mkdirSync(path.dirname(partitionFile), { recursive: true });
    const params: Record<string, string | number> = { scenario: p.scenario, cell: p.cellId };
    if (hadPrevious) params.previous = partitionFile;
    try {
      // COPY takes no parameter for its target; the path is the ingest's own.
      const result = await conn.run(
        `COPY (${select}) TO ${sqlString(tmp)} (${CELL_PARQUET})`,
        params,
      );
      const rows = Number(result.rowsChanged);
      if (rows === 0 && !hadPrevious) {
        fs.rmSync(tmp, { force: true });
        return 0;
      }
      fs.renameSync(tmp, partitionFile);
      return rows;
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw err;
    }
  }

  /** Another connection, for rebuilding partitions side by side. */
  connect(): Promise<DuckDBConnection> {
    return this.db.connect();
  }

  async close() {
    this.conn.closeSync();
    await this.db.close();
  }

  /** Removes the staging database once its content is in the partitions. */
  async remove() {
    await this.close();
    for (const f of [this.file, `${this.file}.wal`]) fs.rmSync(f, { force: true });
  }
}
