/**
 * DuckDB frees a result's memory in the finalizer of the JavaScript object that holds it, and V8
 * does not count that memory: a runner reading one cell's rows after another, allocating little
 * else, kept the results of hundreds of cells (1.6 GB of RSS on a 10 MB heap, 600 cells of 32
 * models and 10 years). The runner starts with --expose-gc (exportProcess.ts) and collects its
 * garbage after every RESULT_BYTES of rows it has read; elsewhere (an export in the test process)
 * this does nothing.
 */
const RESULT_BYTES = 64 << 20;

const collect = (globalThis as { gc?: () => void }).gc;
let sinceCollect = 0;

/** Tells of `bytes` of a DuckDB result no longer used. */
export function resultRead(bytes: number): void {
  if (!collect) return;
  sinceCollect += bytes;
  if (sinceCollect < RESULT_BYTES) return;
  sinceCollect = 0;
  collect();
}
