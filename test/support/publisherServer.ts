import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

/**
 * A stand-in for the publishers' servers on 127.0.0.1, written from their documentation
 * (../shared/reference/archive-access.md): an S3 bucket's ListObjectsV2 (`?list-type=2`, `prefix`,
 * `max-keys`, `continuation-token`; at most `pageKeys` keys a page, so paging is exercised), GET of
 * an object with `Range` (206 with Content-Range, 416 past the end), and NEX-GDDP-CMIP6's md5 index
 * files (`index_md5.txt` for names without a version suffix, `index_v1.1_md5.txt`, ...; md5sum's
 * format) made from the files under `root`. Faults are queued per object and spent one per request.
 */
export type Fault =
  | { kind: 'status'; status: number; retryAfter?: string; body?: string }
  /** Sends the headers of the whole file (or range), `after` bytes of it, then cuts the connection. */
  | { kind: 'cut'; after: number }
  /** Sends `after` bytes, then nothing more, the connection left open. */
  | { kind: 'stall'; after: number }
  /** The whole file with bytes changed: a 200 whose md5 does not match. */
  | { kind: 'corrupt' }
  /** A 200 whose body is an HTML error page. */
  | { kind: 'html' };

export interface Served {
  key: string;
  range: string | undefined;
  status: number;
  fault?: Fault['kind'];
}

export interface PublisherServer {
  url: string;
  /** Requests of objects (not listings or indexes), in order. */
  served: Served[];
  listings: string[];
  /** Most object GETs under way at once. */
  maxInFlight: number;
  fault(key: string, ...faults: Fault[]): void;
  /** Listed, but every GET answers 404. */
  missing: Set<string>;
  close(): Promise<void>;
}

export async function startPublisherServer(root: string, opts: { pageKeys?: number } = {}): Promise<PublisherServer> {
  const pageKeys = opts.pageKeys ?? 1000;
  const faults = new Map<string, Fault[]>();
  const missing = new Set<string>();
  const served: Served[] = [];
  const listings: string[] = [];
  const stalled: http.ServerResponse[] = [];
  let inFlight = 0;
  const state = { maxInFlight: 0 };

  const keys = () => {
    const out: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, e.name);
        if (e.isDirectory()) walk(full);
        else out.push(path.relative(root, full).split(path.sep).join('/'));
      }
    };
    walk(root);
    return out.sort();
  };
  const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/' && url.searchParams.get('list-type') === '2') {
      listings.push(req.url!);
      const prefix = url.searchParams.get('prefix') ?? '';
      const max = Math.min(pageKeys, Number(url.searchParams.get('max-keys') ?? 1000));
      const after = url.searchParams.get('continuation-token') ? Buffer.from(url.searchParams.get('continuation-token')!, 'base64').toString() : '';
      const all = keys().filter((k) => k.startsWith(prefix) && k > after);
      const page = all.slice(0, max);
      const truncated = all.length > max;
      const body =
        `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>nex-gddp-cmip6</Name><Prefix>${xml(prefix)}</Prefix>` +
        `<KeyCount>${page.length}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${truncated}</IsTruncated>` +
        page.map((k) => `<Contents><Key>${xml(k)}</Key><LastModified>2024-01-01T00:00:00.000Z</LastModified><ETag>&quot;${'0'.repeat(32)}-2&quot;</ETag><Size>${fs.statSync(path.join(root, k)).size}</Size><StorageClass>STANDARD</StorageClass></Contents>`).join('') +
        (truncated ? `<NextContinuationToken>${Buffer.from(page.at(-1)!).toString('base64')}</NextContinuationToken>` : '') +
        '</ListBucketResult>';
      res.writeHead(200, { 'Content-Type': 'application/xml' }).end(body);
      return;
    }
    const index = /^\/index(?:_(v[\d.]+))?_md5\.txt$/.exec(url.pathname);
    if (index) {
      const version = index[1];
      const lines = keys()
        .filter((k) => k.startsWith('NEX-GDDP-CMIP6/') && k.endsWith('.nc'))
        .filter((k) => (version ? k.endsWith(`_${version}.nc`) : !/_v[\d.]+\.nc$/.test(k)))
        .map((k) => `${createHash('md5').update(fs.readFileSync(path.join(root, k))).digest('hex')}  ${k}`);
      if (lines.length === 0) res.writeHead(404, { 'Content-Type': 'application/xml' }).end('<Error><Code>NoSuchKey</Code></Error>');
      else res.writeHead(200, { 'Content-Type': 'text/plain' }).end(lines.join('\n') + '\n');
      return;
    }
    const key = decodeURIComponent(url.pathname.slice(1));
    const file = path.join(root, key);
    const range = req.headers.range;
    const log = (status: number, fault?: Fault['kind']) => served.push({ key, range, status, ...(fault ? { fault } : {}) });
    if (missing.has(key) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      log(404);
      res.writeHead(404, { 'Content-Type': 'application/xml' }).end(`<Error><Code>NoSuchKey</Code><Key>${xml(key)}</Key></Error>`);
      return;
    }
    const fault = faults.get(key)?.shift();
    if (fault?.kind === 'status') {
      log(fault.status, 'status');
      res.writeHead(fault.status, { 'Content-Type': 'text/plain', ...(fault.retryAfter ? { 'Retry-After': fault.retryAfter } : {}) }).end(fault.body ?? 'Slow Down');
      return;
    }
    if (fault?.kind === 'html') {
      log(200, 'html');
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!DOCTYPE html><html><body><h1>Service temporarily unavailable</h1></body></html>');
      return;
    }
    let bytes = fs.readFileSync(file);
    if (fault?.kind === 'corrupt') {
      bytes = Buffer.from(bytes);
      for (let k = bytes.length >> 1; k < Math.min(bytes.length, (bytes.length >> 1) + 64); k++) bytes[k] = bytes[k]! ^ 0xff;
    }
    let status = 200;
    const headers: Record<string, string> = { 'Content-Type': 'application/x-netcdf', 'Accept-Ranges': 'bytes' };
    const m = range ? /^bytes=(\d+)-(\d*)$/.exec(range) : null;
    if (m) {
      const start = Number(m[1]);
      const end = m[2] ? Math.min(Number(m[2]), bytes.length - 1) : bytes.length - 1;
      if (start >= bytes.length) {
        log(416);
        res.writeHead(416, { 'Content-Range': `bytes */${bytes.length}` }).end();
        return;
      }
      headers['Content-Range'] = `bytes ${start}-${end}/${bytes.length}`;
      bytes = bytes.subarray(start, end + 1);
      status = 206;
    }
    headers['Content-Length'] = String(bytes.length);
    log(status, fault?.kind);
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    res.once('close', () => inFlight--);
    res.writeHead(status, headers);
    if (fault?.kind === 'cut' || fault?.kind === 'stall') {
      res.write(bytes.subarray(0, fault.after), () => {
        if (fault.kind === 'cut') res.destroy();
        else stalled.push(res);
      });
      return;
    }
    res.end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    listings,
    get maxInFlight() {
      return state.maxInFlight;
    },
    fault: (key, ...fs_) => faults.set(key, [...(faults.get(key) ?? []), ...fs_]),
    missing,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of stalled) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
