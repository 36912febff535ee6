/**
 * Output formats of the raw century (one cell, all 21 NEX-GDDP models, 3 variables, agg=avg, all
 * 95 RCP85 years) as JSON, CSV and Arrow: bytes on the wire, plain and compressed, and latency.
 * One client, the formats interleaved per cell so that machine noise hits them alike. Each request
 * asks for `Accept-Encoding: identity` (plain bytes, latency without compression) and then for
 * gzip and br: when the server compresses (src/http/compress.ts), those are its wire bytes
 * and latencies; when it does not, the body is compressed here with the middleware's settings
 * (gzip level 6, brotli quality 4) and the time that took is reported as the compression cost.
 * Run alone: BENCH_ONLY=formats make bench.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import type { Catalog } from '../src/reference/catalog.js';
import { climateWorkloads } from './workloads.js';

const FORMATS = ['json', 'csv', 'arrow'] as const;
type Format = (typeof FORMATS)[number];
const ENCODINGS = ['gzip', 'br'] as const;
type Encoding = (typeof ENCODINGS)[number];

interface Sample {
  ms: number;
  bytes: number;
  body: Buffer;
  encoding: string | undefined;
}

export interface FormatRow {
  format: Format;
  requests: number;
  p50Ms: number;
  bytes: number;
  /** Per encoding: median wire bytes, and p50 ms of the request (server compressing) or of compressing here. */
  compressed: Record<Encoding, { bytes: number; p50Ms: number; by: 'server' | 'bench' }>;
}

function fetchOnce(url: string, token: string, acceptEncoding: string): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.get(url, { headers: { authorization: `Token ${token}`, 'accept-encoding': acceptEncoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`${url}: HTTP ${res.statusCode}`));
        const body = Buffer.concat(chunks);
        resolve({ ms: performance.now() - t0, bytes: body.length, body, encoding: res.headers['content-encoding'] });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function compressHere(body: Buffer, encoding: Encoding): { bytes: number; ms: number } {
  const t0 = performance.now();
  const out =
    encoding === 'gzip'
      ? zlib.gzipSync(body)
      : zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } });
  return { bytes: out.length, ms: performance.now() - t0 };
}

export async function formatsBench(baseUrl: string, token: string, catalog: Catalog, cells = 20): Promise<FormatRow[]> {
  const raw = climateWorkloads(catalog).find((w) => w.name.startsWith('raw century'))!;
  const paths = raw.paths.slice(0, cells);
  const url = (path: string, format: Format) => `${baseUrl}${path}${path.includes('?') ? '&' : '?'}format=${format}`;
  process.stderr.write(`bench: formats (raw century as JSON, CSV and Arrow over ${paths.length} cells, 1 client)...\n`);
  // Warm-up: the first requests load the Parquet metadata and JIT the writers.
  for (const f of FORMATS) for (const p of paths.slice(0, 2)) await fetchOnce(url(p, f), token, 'identity');

  // Which (format, encoding) pairs the server compresses itself (a compression filter may skip some types).
  const byServer = new Set<string>();
  for (const f of FORMATS) for (const e of ENCODINGS) if ((await fetchOnce(url(paths[0]!, f), token, e)).encoding === e) byServer.add(`${f}:${e}`);

  const plain = new Map<Format, Sample[]>(FORMATS.map((f) => [f, []]));
  const packed = new Map<string, { bytes: number; ms: number; by: 'server' | 'bench' }[]>();
  for (const p of paths) {
    for (const f of FORMATS) {
      const s = await fetchOnce(url(p, f), token, 'identity');
      plain.get(f)!.push(s);
      for (const e of ENCODINGS) {
        let m: { bytes: number; ms: number; by: 'server' | 'bench' };
        if (byServer.has(`${f}:${e}`)) {
          const c = await fetchOnce(url(p, f), token, e);
          m = { bytes: c.bytes, ms: c.ms, by: 'server' };
        } else {
          m = { ...compressHere(s.body, e), by: 'bench' };
        }
        const key = `${f}:${e}`;
        packed.set(key, [...(packed.get(key) ?? []), m]);
      }
    }
  }
  return FORMATS.map((f) => {
    const samples = plain.get(f)!;
    const compressed = Object.fromEntries(
      ENCODINGS.map((e) => {
        const ms = packed.get(`${f}:${e}`)!;
        return [e, { bytes: Math.round(median(ms.map((m) => m.bytes))), p50Ms: median(ms.map((m) => m.ms)), by: ms[0]!.by }];
      }),
    ) as FormatRow['compressed'];
    return { format: f, requests: samples.length, p50Ms: median(samples.map((s) => s.ms)), bytes: Math.round(median(samples.map((s) => s.bytes))), compressed };
  });
}

export function printFormats(rows: FormatRow[]) {
  const kb = (b: number) => `${(b / 1024).toFixed(0)} KB`;
  const ms = (c: { p50Ms: number; by: string }) => (c.by === 'server' ? `${c.p50Ms.toFixed(0)} (request)` : `+${c.p50Ms.toFixed(0)} (zlib here)`);
  console.log(`\nraw century as JSON, CSV and Arrow (1 client, ${rows[0]?.requests ?? 0} cells, median bytes)`);
  console.log('"(request)": p50 of the request with the server compressing; "(zlib here)": the server sent it plain, so the bench compressed it and shows that time.');
  console.log('\n| format | bytes | gzip | br (q4) | p50 ms | gzip ms | br ms |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const { gzip, br } = r.compressed;
    console.log(`| ${r.format} | ${kb(r.bytes)} | ${kb(gzip.bytes)} | ${kb(br.bytes)} | ${r.p50Ms.toFixed(0)} | ${ms(gzip)} | ${ms(br)} |`);
  }
}
