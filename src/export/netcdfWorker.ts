import { parentPort } from 'node:worker_threads';
import { openNetcdf, type NetcdfHeader, type NetcdfSeriesWriter } from './netcdfWriter.js';

/**
 * The export runner's NetCDF thread (src/export/netcdfThread.ts): it holds the open file and does
 * the HDF5 library's work (chunking, deflate) while the runner's own thread copies the next
 * series out of DuckDB. One file at a time; each message is answered, in order.
 */
export type NetcdfMessage =
  | { type: 'open'; file: string; header: NetcdfHeader }
  | { type: 'series'; variable: number; model: number; position: number; values: Float32Array | Float64Array }
  | { type: 'close' | 'abandon' };

export type NetcdfReply = { ok: true } | { ok: false; error: string };
/** While a close fills the series without data: how far it is (not a reply; close's reply follows). */
export type NetcdfFilling = { filled: number; of: number };

const port = parentPort!;
let writer: NetcdfSeriesWriter | undefined;

async function handle(m: NetcdfMessage): Promise<void> {
  if (m.type === 'open') {
    writer?.abandon();
    writer = undefined;
    writer = await openNetcdf(m.file, m.header);
    return;
  }
  if (!writer) {
    // Closed already (a close that failed closes the file too).
    if (m.type === 'abandon') return;
    throw new Error(`the NetCDF thread has no open file for ${m.type}`);
  }
  if (m.type === 'series') return writer.writeSeries(m.variable, m.model, m.position, m.values);
  const open = writer;
  writer = undefined;
  if (m.type === 'close') open.close((filled, of) => port.postMessage({ filled, of } satisfies NetcdfFilling));
  else open.abandon();
}

// Messages are handled one after another: an open awaits h5wasm's start, and what follows waits for it.
let queue = Promise.resolve();
port.on('message', (m: NetcdfMessage) => {
  queue = queue.then(() =>
    handle(m).then(
      () => port.postMessage({ ok: true } satisfies NetcdfReply),
      (err: unknown) => port.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) } satisfies NetcdfReply),
    ),
  );
});
port.postMessage('ready');
