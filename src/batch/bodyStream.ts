import { once } from 'node:events';
import zlib from 'node:zlib';
import type { Response } from 'express';
import { chooseEncoding, stopCollecting } from '../http/compress.js';

/** A response body written piece by piece, compressed on the way when the client accepts it. */
export interface BodyStream {
  write(text: string): Promise<void>;
  /** Sends what has been written so far (a compressor holds it back otherwise). */
  flush(): Promise<void>;
  end(): Promise<void>;
}

/** The client went away: there is nobody to write the rest for. */
export class ClientGone extends Error {}

/**
 * Opens the body of `res` (headers set before, except the encoding) as a stream. The app's
 * compression collects whole bodies; a batch's can be large and is better sent as it is computed,
 * so it streams with the same encodings and levels (br quality 1, gzip level 1).
 */
export function openBodyStream(res: Response): BodyStream {
  stopCollecting(res);
  const encoding = chooseEncoding(res.req.headers['accept-encoding']);
  res.vary('Accept-Encoding');
  let zip: zlib.BrotliCompress | zlib.Gzip | zlib.Deflate | undefined;
  if (encoding) {
    res.setHeader('Content-Encoding', encoding);
    zip =
      encoding === 'br'
        ? zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } })
        : encoding === 'gzip'
          ? zlib.createGzip({ level: 1 })
          : zlib.createDeflate({ level: 1 });
    zip.pipe(res);
  }
  const sink: NodeJS.WritableStream = zip ?? res;
  const alive = () => {
    if (res.destroyed || res.writableEnded) throw new ClientGone('The client closed the connection.');
  };
  return {
    async write(text) {
      alive();
      if (!sink.write(text)) await firstOf([sink as zlib.Gzip, 'drain'], [res, 'close']);
    },
    async flush() {
      alive();
      if (zip) await new Promise<void>((resolve) => zip.flush(() => resolve()));
    },
    async end() {
      if (res.destroyed) return;
      const finished = firstOf([res, 'finish'], [res, 'close']);
      sink.end();
      await finished;
    },
  };
}

/**
 * Resolves at the first of two events, then removes the listener of the other: a body that waits
 * for 'drain' at every few pieces left a 'close' (and an 'error') listener on the response each
 * time, until Node warned of a leak at the 11th.
 */
async function firstOf(a: [NodeJS.EventEmitter, string], b: [NodeJS.EventEmitter, string]): Promise<void> {
  const done = new AbortController();
  try {
    await Promise.race([once(a[0], a[1], { signal: done.signal }), once(b[0], b[1], { signal: done.signal })]);
  } finally {
    done.abort();
  }
}
