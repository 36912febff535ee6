import type { Worker } from 'node:worker_threads';
import { startThread } from '../threads.js';
import type { NetcdfHeader } from './netcdfWriter.js';
import type { NetcdfFilling, NetcdfMessage, NetcdfReply } from './netcdfWorker.js';

/**
 * An export's NetCDF file, written by a thread of its own (netcdfWorker.ts): the HDF5 library's
 * deflate of one series takes as long as copying it out of DuckDB, and on one thread the two
 * took turns (3.9 M values/s). Each series is copied and handed over; at most IN_FLIGHT_BYTES
 * wait for the thread, so memory stays bounded when the writer is the slower side.
 */
export interface NetcdfFile {
  /** As NetcdfSeriesWriter.writeSeries; resolves once the thread has room for more. */
  writeSeries(variable: number, model: number, position: number, values: Float32Array | Float64Array): Promise<void>;
  /** Positions per model: the rectangle's cells or the locations. */
  readonly positions: number;
  /** Writes FILL where no series was written, and closes the file; `filled` hears the share of that filling done, 0..1. */
  close(filled?: (fraction: number) => void): Promise<void>;
  /** Closes the file as it is (the export stopped). */
  abandon(): Promise<void>;
}

const IN_FLIGHT_BYTES = 16 << 20;

/** The runner's NetCDF thread, started at its first file and kept for the next. */
let thread: Promise<Worker> | undefined;

export async function openNetcdfThread(file: string, header: NetcdfHeader): Promise<NetcdfFile> {
  const started = (thread ??= startThread(import.meta.url, 'netcdfWorker'));
  const worker = await started.catch((err: unknown) => {
    thread = undefined;
    throw err;
  });
  worker.ref();
  const pending: { bytes: number; done: Promise<void>; settle: (reply: NetcdfReply) => void }[] = [];
  let inFlight = 0;
  let failed: Error | undefined;
  let exited = false;
  let onFilling: ((fraction: number) => void) | undefined;
  const onReply = (reply: NetcdfReply | NetcdfFilling) => {
    if (typeof reply === 'object' && 'filled' in reply) return onFilling?.(reply.of === 0 ? 1 : reply.filled / reply.of);
    const p = pending.shift();
    if (!p) return;
    inFlight -= p.bytes;
    if (!reply.ok) failed ??= new Error(`writing the NetCDF file: ${reply.error}`);
    p.settle(reply);
  };
  const onExit = (code: number) => {
    thread = undefined;
    exited = true;
    failed ??= new Error(`the NetCDF writer's thread ended (status ${code}) before the file was closed`);
    for (const p of pending.splice(0)) p.settle({ ok: false, error: failed.message });
  };
  worker.on('message', onReply);
  worker.once('exit', onExit);
  const send = (m: NetcdfMessage, bytes = 0): Promise<void> => {
    if (exited) return Promise.reject(failed);
    let settle!: (reply: NetcdfReply) => void;
    const done = new Promise<void>((resolve, reject) => {
      settle = (reply) => (reply.ok ? resolve() : reject(failed ?? new Error(reply.error)));
    });
    // A series' failure is raised by the next call or by close(), not as an unhandled rejection.
    done.catch(() => undefined);
    pending.push({ bytes, done, settle });
    inFlight += bytes;
    worker.postMessage(m, m.type === 'series' ? [m.values.buffer as ArrayBuffer] : []);
    return done;
  };
  const detach = () => {
    worker.off('message', onReply);
    worker.off('exit', onExit);
    worker.unref();
  };
  // After a failed series the file is still open in the thread: close() reports the failure,
  // abandon() closes it as it is.
  const last = async (type: 'close' | 'abandon') => {
    if (type === 'close' && failed) throw failed;
    try {
      if (!exited) await send({ type });
    } finally {
      detach();
    }
  };
  try {
    await send({ type: 'open', file, header });
  } catch (err) {
    detach();
    throw err;
  }
  const where = header.where;
  return {
    positions: where.kind === 'area' ? where.lats.length * where.lons.length : where.labels.length,
    async writeSeries(variable, model, position, values) {
      if (failed) throw failed;
      const copy = values.slice();
      void send({ type: 'series', variable, model, position, values: copy }, copy.byteLength);
      while (inFlight > IN_FLIGHT_BYTES && pending.length > 0) await pending[0]!.done;
      if (failed) throw failed;
    },
    close: (filled) => {
      onFilling = filled;
      return last('close');
    },
    abandon: () => last('abandon'),
  };
}
