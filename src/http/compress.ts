import zlib from 'node:zlib';
import type { RequestHandler, Response } from 'express';

/**
 * Response compression, the whole body at once. Every answer of this service is built in memory
 * before it is sent, so the body is collected as it is written and compressed in one call when
 * the response ends: synchronously below SYNC_LIMIT (a 4 KB indicator answer takes 0.03 ms to
 * compress, while the `compression` middleware's zlib stream added 0.8 ms to it), in the thread
 * pool above (a raw century's 1 MB takes 5 ms, which the event loop should not wait for).
 * br at quality 1 and gzip at level 1, chosen by measurement (docs/benchmarks.md, "Output formats"); deflate only for
 * a client that takes neither. Bodies under `threshold` bytes are sent as they are.
 */
export interface CompressOptions {
  /** Smallest body worth compressing, in bytes. */
  threshold: number;
  /** Whether the response's type is worth compressing. */
  compressible: (res: Response) => boolean;
}

const SYNC_LIMIT = 64 * 1024;
type Encoding = 'br' | 'gzip' | 'deflate';
const PREFERENCE: Encoding[] = ['br', 'gzip', 'deflate'];

/** Accept-Encoding values seen lately, parsed: clients send a few values again and again. */
const parsedHeaders = new Map<string, readonly Encoding[]>();

/** The encodings Accept-Encoding allows (q > 0), of br, gzip and deflate, in that order. */
export function acceptedEncodings(header: string | undefined): readonly Encoding[] {
  if (!header) return [];
  let encodings = parsedHeaders.get(header);
  if (!encodings) {
    encodings = parseAcceptEncoding(header);
    // Arbitrary headers cannot make it grow.
    if (parsedHeaders.size >= 64) parsedHeaders.clear();
    parsedHeaders.set(header, encodings);
  }
  return encodings;
}

function parseAcceptEncoding(header: string): Encoding[] {
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const allowed = (e: string) => (q.get(e) ?? q.get('*') ?? 0) > 0;
  return PREFERENCE.filter(allowed);
}

/** The encoding to answer with: the first of br, gzip, deflate that Accept-Encoding allows. */
export function chooseEncoding(header: string | undefined): Encoding | undefined {
  return acceptedEncodings(header)[0];
}

function compressSync(encoding: Encoding, body: Buffer): Buffer {
  if (encoding === 'br') return zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } });
  return encoding === 'gzip' ? zlib.gzipSync(body, { level: 1 }) : zlib.deflateSync(body, { level: 1 });
}

function compressAsync(encoding: Encoding, body: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, out: Buffer) => (err ? reject(err) : resolve(out));
    if (encoding === 'br') zlib.brotliCompress(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }, done);
    else if (encoding === 'gzip') zlib.gzip(body, { level: 1 }, done);
    else zlib.deflate(body, { level: 1 }, done);
  });
}

const toBuffer = (chunk: unknown, encoding?: BufferEncoding): Buffer =>
  Buffer.isBuffer(chunk) ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk) : Buffer.from(String(chunk), encoding ?? 'utf8');

/**
 * The media types worth compressing: text, JSON (GeoJSON, NDJSON, problem+json, ...), JavaScript,
 * SVG, and Arrow, which mime-db does not mark compressible though gzip halves a raw century's.
 */
export function compressibleType(res: Response): boolean {
  const type = String(res.getHeader('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
  return /^(text\/|image\/svg\+xml$|application\/(json|javascript|x-ndjson|xml|vnd\.apache\.arrow\.(stream|file)|[\w.-]+\+(json|xml))$)/.test(type);
}

const UNCOLLECTED = Symbol('uncollected');
type Uncollected = { write: Response['write']; end: Response['end'] };

/**
 * Takes a response out of the collecting below, for a handler that streams its body (and
 * compresses it itself, if at all): a batch's results go out as each is computed.
 */
export function stopCollecting(res: Response) {
  const original = (res as Response & { [UNCOLLECTED]?: Uncollected })[UNCOLLECTED];
  if (original) {
    res.write = original.write;
    res.end = original.end;
  }
}

export function compress({ threshold, compressible }: CompressOptions): RequestHandler {
  return (req, res, next) => {
    const encoding = chooseEncoding(req.headers['accept-encoding']);
    const chunks: Buffer[] = [];
    (res as Response & { [UNCOLLECTED]?: Uncollected })[UNCOLLECTED] = { write: res.write, end: res.end };
    const write = res.write.bind(res) as (chunk: unknown) => boolean;
    const end = res.end.bind(res) as (chunk?: unknown) => Response;

    // Collect the body; the response goes out in res.end below.
    res.write = ((chunk: unknown, enc?: unknown, cb?: unknown) => {
      if (chunk !== undefined && chunk !== null) chunks.push(toBuffer(chunk, typeof enc === 'string' ? (enc as BufferEncoding) : undefined));
      const callback = typeof enc === 'function' ? enc : cb;
      if (typeof callback === 'function') process.nextTick(callback as () => void);
      return true;
    }) as Response['write'];

    res.end = ((chunk?: unknown, enc?: unknown, cb?: unknown) => {
      if (typeof chunk === 'function') [cb, chunk] = [chunk, undefined];
      if (typeof enc === 'function') [cb, enc] = [enc, undefined];
      if (chunk !== undefined && chunk !== null) chunks.push(toBuffer(chunk, typeof enc === 'string' ? (enc as BufferEncoding) : undefined));
      const body = Buffer.concat(chunks);
      const finish = (out: Buffer, contentEncoding?: Encoding) => {
        // A HEAD answer keeps the length of its GET body, which Express has set.
        if (!res.headersSent && req.method !== 'HEAD') {
          if (contentEncoding) res.setHeader('Content-Encoding', contentEncoding);
          if (res.statusCode !== 304 && res.statusCode !== 204) res.setHeader('Content-Length', out.length);
        }
        if (out.length > 0 && req.method !== 'HEAD') write(out);
        end();
        if (typeof cb === 'function') (cb as () => void)();
      };
      const worth = compressible(res);
      if (worth && !res.headersSent) res.vary('Accept-Encoding');
      const plain =
        !encoding || !worth || res.headersSent || req.method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304 || res.getHeader('Content-Encoding') !== undefined || body.length < threshold;
      if (plain) {
        finish(body);
      } else if (body.length <= SYNC_LIMIT) {
        finish(compressSync(encoding, body), encoding);
      } else {
        compressAsync(encoding, body).then(
          (out) => finish(out, encoding),
          () => finish(body),
        );
      }
      return res;
    }) as Response['end'];
    next();
  };
}
