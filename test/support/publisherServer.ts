import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { FetchOptions } from '../../src/ingest/fetchRegion.js';

/**
 * A stand-in for the publishers' servers on 127.0.0.1, written from their documentation
 * (../shared/reference/archive-access.md): an S3 bucket's ListObjectsV2 (`?list-type=2`, `prefix`,
 * `max-keys`, `continuation-token`; at most `pageKeys` keys a page, so paging is exercised), GET of
 * an object with `Range` (206 with Content-Range, 416 past the end), and NEX-GDDP-CMIP6's md5 index
 * files (`index_md5.txt` for names without a version suffix, `index_v1.1_md5.txt`, ...; md5sum's
 * format) made from the files under `root`. Faults are queued per object and spent one per GET.
 * Also, for the other publishers (archive-access.md sections 3 and 4): the nasanex bucket's JSON
 * indexes (`NEX-GDDP/nex-gddp-s3-files.json`, `LOCA/loca-s3-files.json`: each file's web link at
 * the real bucket to its model, variable, experiment_id and year or rtag; LOCA's also lists a
 * 1-degree `1x1` copy of each file, which this server does not have), Apache-style folder pages
 * ("Index of ...", mod_autoindex's table) for a GET of a folder's path ending in `/`, and HEAD of
 * an object (its size; no fault spent).
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
  /** Objects asked for with HEAD. */
  heads: string[];
  /** Most object GETs under way at once. */
  maxInFlight: number;
  fault(key: string, ...faults: Fault[]): void;
  /** Resolves once a stall fault of `key` has handed its bytes to the connection (at once if one has). */
  stalled(key: string): Promise<void>;
  /** Listed, but every GET answers 404. */
  missing: Set<string>;
  close(): Promise<void>;
}

/** The fetch settings the tests use against this server: every dataset's base URL on it, two downloads at a time, short backoffs. */
export function localFetchSettings(server: PublisherServer, downloadDir: string, log: string[]): Pick<FetchOptions, 'archiveUrls' | 'concurrency' | 'keepDownloads' | 'downloadDir' | 'statedRateMbps' | 'retry' | 'log'> {
  return {
    archiveUrls: { 'NEX-GDDP-CMIP6': server.url, 'NEX-GDDP': server.url, LOCA: server.url, LOCA2: `${server.url}/LOCA2` },
    concurrency: 2,
    keepDownloads: false,
    downloadDir,
    statedRateMbps: 20,
    retry: { backoffMs: 20, maxBackoffMs: 100 },
    log: (l) => log.push(l),
  };
}

export async function startPublisherServer(root: string, opts: { pageKeys?: number } = {}): Promise<PublisherServer> {
  const pageKeys = opts.pageKeys ?? 1000;
  const faults = new Map<string, Fault[]>();
  const missing = new Set<string>();
  const served: Served[] = [];
  const listings: string[] = [];
  const heads: string[] = [];
  const stalled: http.ServerResponse[] = [];
  const stalledKeys = new Set<string>();
  const onStall = new Map<string, (() => void)[]>();
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
    const nasanex = nasanexIndex(url.pathname);
    if (nasanex) {
      listings.push(req.url!);
      const index = nasanex(keys());
      if (Object.keys(index).length === 0) res.writeHead(404, { 'Content-Type': 'application/xml' }).end('<Error><Code>NoSuchKey</Code></Error>');
      else res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(index));
      return;
    }
    const key = decodeURIComponent(url.pathname.slice(1));
    const file = path.join(root, key);
    if (key.endsWith('/') || key === '') {
      listings.push(req.url!);
      if (!fs.existsSync(file) || !fs.statSync(file).isDirectory()) res.writeHead(404, { 'Content-Type': 'text/html' }).end('<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>');
      else res.writeHead(200, { 'Content-Type': 'text/html;charset=ISO-8859-1' }).end(folderPage(url.pathname, file));
      return;
    }
    if (req.method === 'HEAD') {
      heads.push(key);
      if (missing.has(key) || !fs.existsSync(file) || !fs.statSync(file).isFile()) res.writeHead(404, { 'Content-Type': 'application/xml' }).end();
      else res.writeHead(200, { 'Content-Type': 'application/x-netcdf', 'Content-Length': String(fs.statSync(file).size), 'Accept-Ranges': 'bytes' }).end();
      return;
    }
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
        else {
          stalled.push(res);
          stalledKeys.add(key);
          for (const f of onStall.get(key) ?? []) f();
          onStall.delete(key);
        }
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
    heads,
    get maxInFlight() {
      return state.maxInFlight;
    },
    fault: (key, ...fs_) => faults.set(key, [...(faults.get(key) ?? []), ...fs_]),
    stalled: (key) => (stalledKeys.has(key) ? Promise.resolve() : new Promise<void>((resolve) => onStall.set(key, [...(onStall.get(key) ?? []), resolve]))),
    missing,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of stalled) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const NASANEX = 'https://nasanex.s3.amazonaws.com';

/** The nasanex bucket's JSON index asked for, made from the keys under the server's root; undefined for another path. */
function nasanexIndex(pathname: string): ((keys: string[]) => Record<string, Record<string, string | number>>) | undefined {
  if (pathname === '/NEX-GDDP/nex-gddp-s3-files.json') {
    return (keys) => {
      const out: Record<string, Record<string, string | number>> = {};
      for (const k of keys) {
        const m = /^NEX-GDDP\/BCSD\/([^/]+)\/day\/atmos\/([^/]+)\/[^/]+\/[^/]+\/[^/]+_day_BCSD_[^_]+_[^_]+_(.+)_(\d{4})\.nc$/.exec(k);
        // Model names in lower case, as public code that reads the index asks for them.
        if (m) out[`${NASANEX}/${k}`] = { model: m[3]!.toLowerCase(), variable: m[2]!, year: Number(m[4]), experiment_id: m[1]! };
      }
      return out;
    };
  }
  if (pathname === '/LOCA/loca-s3-files.json') {
    return (keys) => {
      const out: Record<string, Record<string, string | number>> = {};
      for (const k of keys) {
        const m = /^LOCA\/([^/]+)\/16th\/([^/]+)\/[^/]+\/([^/]+)\/[^/]+\.nc$/.exec(k);
        if (!m) continue;
        out[`${NASANEX}/${k}`] = { model: m[1]!, variable: m[3]!, experiment_id: m[2]!, rtag: '16th' };
        out[`${NASANEX}/${k.replace('/16th/', '/1x1/').replace(/\.16th\.nc$/, '.1x1.nc')}`] = { model: m[1]!, variable: m[3]!, experiment_id: m[2]!, rtag: '1x1' };
      }
      return out;
    };
  }
  return undefined;
}

/** A folder's page as Apache's mod_autoindex writes it (FancyIndexing, HTMLTable): long names cut in the link text, sizes rounded. */
function folderPage(pathname: string, dir: string): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const human = (n: number) => (n < 1024 ? String(n) : n < 1024 ** 2 ? `${(n / 1024).toFixed(0)}K` : n < 1024 ** 3 ? `${(n / 1024 ** 2).toFixed(1)}M` : `${(n / 1024 ** 3).toFixed(1)}G`);
  const parent = pathname.replace(/[^/]+\/$/, '');
  const rows = fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((e) => {
      const name = e.isDirectory() ? `${e.name}/` : e.name;
      const shown = name.length > 23 ? `${name.slice(0, 20)}..&gt;` : esc(name);
      const size = e.isDirectory() ? '  - ' : human(fs.statSync(path.join(dir, e.name)).size);
      const icon = e.isDirectory() ? '<img src="/icons/folder.gif" alt="[DIR]">' : '<img src="/icons/unknown.gif" alt="[   ]">';
      return `<tr><td valign="top">${icon}</td><td><a href="${esc(encodeURIComponent(e.name))}${e.isDirectory() ? '/' : ''}">${shown}</a></td><td align="right">2022-04-13 10:00  </td><td align="right">${size}</td><td>&nbsp;</td></tr>`;
    });
  return (
    `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">\n<html>\n <head>\n  <title>Index of ${esc(pathname.replace(/\/$/, ''))}</title>\n </head>\n <body>\n<h1>Index of ${esc(pathname.replace(/\/$/, ''))}</h1>\n  <table>\n` +
    '   <tr><th valign="top"><img src="/icons/blank.gif" alt="[ICO]"></th><th><a href="?C=N;O=D">Name</a></th><th><a href="?C=M;O=A">Last modified</a></th><th><a href="?C=S;O=A">Size</a></th><th><a href="?C=D;O=A">Description</a></th></tr>\n' +
    '   <tr><th colspan="5"><hr></th></tr>\n' +
    `<tr><td valign="top"><img src="/icons/back.gif" alt="[PARENTDIR]"></td><td><a href="${esc(parent)}">Parent Directory</a></td><td>&nbsp;</td><td align="right">  - </td><td>&nbsp;</td></tr>\n` +
    rows.join('\n') +
    '\n   <tr><th colspan="5"><hr></th></tr>\n</table>\n<address>Apache/2.4.37 Server at 127.0.0.1 Port 80</address>\n</body></html>\n'
  );
}
