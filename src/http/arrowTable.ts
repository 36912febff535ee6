import {
  Data,
  DateDay,
  Dictionary,
  Field,
  Float32,
  Float64,
  Int16,
  Int32,
  Int8,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';

/**
 * Arrow IPC streams built straight from typed arrays: one record batch, no per-value JS objects.
 * Columns that repeat a few strings (model, variable, statistic, period) are dictionary-encoded with
 * the narrowest index type that holds the dictionary.
 */

export interface Column {
  field: Field;
  data: Data;
}

type Indices = Int8Array | Int16Array | Int32Array;

/** Index array for `length` rows of a dictionary of `size` strings. */
export function dictionaryIndices(size: number, length: number): Indices {
  if (size <= 0x7f) return new Int8Array(length);
  if (size <= 0x7fff) return new Int16Array(length);
  return new Int32Array(length);
}

export function dictionaryColumn(name: string, dictionary: string[], indices: Indices, metadata?: Map<string, string>): Column {
  const indexType = indices instanceof Int8Array ? new Int8() : indices instanceof Int16Array ? new Int16() : new Int32();
  const type = new Dictionary(new Utf8(), indexType);
  const data = makeData({ type, length: indices.length, data: indices, dictionary: vectorFromArray(dictionary, new Utf8()) });
  return { field: new Field(name, type, false, metadata), data: data as Data };
}

/** date32: days since 1970-01-01. */
export function dateColumn(name: string, days: Int32Array): Column {
  const type = new DateDay();
  return { field: new Field(name, type, false), data: makeData({ type, length: days.length, data: days }) as Data };
}

/** int32 values, none null. */
export function intColumn(name: string, values: Int32Array): Column {
  const type = new Int32();
  return { field: new Field(name, type, false), data: makeData({ type, length: values.length, data: values }) as Data };
}

/** float32 or float64 values; `valid` (one byte per row, 1 = has a value) makes the column nullable. */
export function floatColumn(name: string, values: Float32Array | Float64Array, metadata: Map<string, string>, valid?: Uint8Array): Column {
  const type = values instanceof Float32Array ? new Float32() : new Float64();
  let nullBitmap: Uint8Array | undefined;
  let nullCount = 0;
  if (valid) {
    nullBitmap = new Uint8Array((values.length + 7) >> 3);
    for (let i = 0; i < values.length; i++) {
      if (valid[i]) nullBitmap[i >> 3]! |= 1 << (i & 7);
      else nullCount++;
    }
  }
  const data = makeData({ type, length: values.length, data: values, nullBitmap: nullCount > 0 ? nullBitmap : undefined, nullCount });
  return { field: new Field(name, type, valid !== undefined, metadata), data: data as Data };
}

/** The columns as one Arrow IPC stream (schema, dictionaries, one record batch). */
export function ipcStream(columns: Column[], metadata: Map<string, string>): Uint8Array {
  const fields = columns.map((c) => c.field);
  const schema = new Schema(fields, metadata);
  const length = columns[0]?.data.length ?? 0;
  const struct = makeData({ type: new Struct(fields), length, nullCount: 0, children: columns.map((c) => c.data) });
  return tableToIPC(new Table(schema, new RecordBatch(schema, struct)), 'stream');
}
