import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { chooseEncoding, compress, compressibleType } from '../src/http/compress.js';
import { gzipPieces, SegmentCache } from '../src/http/gzipSegments.js';

/** src/http/compress.ts on a small app: what it sends for each kind of body and Accept-Encoding. */
const small = JSON.stringify({ ok: true });
const medium = JSON.stringify({ values: Array.from({ length: 2000 }, (_, i) => i * 1.5) }); // ~17 KB: compressed in one call
const large = JSON.stringify({ values: Array.from({ length: 40000 }, (_, i) => i * 1.25) }); // ~330 KB: in the thread pool

const app = express();
app.use(compress({ threshold: 1024, compressible: compressibleType }));
app.get('/small', (_req, res) => res.type('application/json').send(small));
app.get('/medium', (_req, res) => res.type('application/json').send(medium));
app.get('/large', (_req, res) => {
  // Written in pieces, as the raw data routes do.
  res.type('application/json');
  for (let i = 0; i < large.length; i += 65536) res.write(large.slice(i, i + 65536));
  res.end();
});
app.get('/png', (_req, res) => res.type('image/png').send(Buffer.alloc(5000, 7)));
app.get('/not-modified', (_req, res) => res.status(304).end());

/** The bytes as sent (supertest would decompress them). */
async function raw(path: string, acceptEncoding = '', method: 'GET' | 'HEAD' = 'GET') {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.request({ host: '127.0.0.1', port, path, method, headers: { 'accept-encoding': acceptEncoding } }, resolve).on('error', reject).end(),
    );
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) };
  } finally {
    server.close();
  }
}

describe('compress', () => {
  it('picks br, then gzip, then deflate, as Accept-Encoding allows', () => {
    expect(chooseEncoding('gzip, deflate, br')).toBe('br');
    expect(chooseEncoding('gzip, deflate')).toBe('gzip');
    expect(chooseEncoding('br;q=0, gzip;q=0.5')).toBe('gzip');
    expect(chooseEncoding('deflate')).toBe('deflate');
    expect(chooseEncoding('*')).toBe('br');
    expect(chooseEncoding('*, br;q=0')).toBe('gzip');
    expect(chooseEncoding('identity')).toBeUndefined();
    expect(chooseEncoding('')).toBeUndefined();
    expect(chooseEncoding(undefined)).toBeUndefined();
  });

  it('answers the same for a header seen before, past the number of headers it keeps', () => {
    // Parsed headers are kept (64 at most): every answer must still be the header's own.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 100; i++) {
        expect(chooseEncoding(`br;q=${i % 2}, gzip;q=0.${i + 1}`)).toBe(i % 2 ? 'br' : 'gzip');
        expect(chooseEncoding(`deflate, x-${i}`)).toBe('deflate');
      }
    }
  });

  it.each([
    ['br', zlib.brotliDecompressSync],
    ['gzip', zlib.gunzipSync],
    ['deflate', zlib.inflateSync],
  ] as const)('compresses a body in one piece and one written in pieces with %s, with its length', async (encoding, decode) => {
    for (const [path, body] of [['/medium', medium], ['/large', large]] as const) {
      const res = await raw(path, encoding);
      expect(res.headers['content-encoding'], path).toBe(encoding);
      expect(res.headers.vary).toMatch(/Accept-Encoding/);
      expect(Number(res.headers['content-length'])).toBe(res.body.length);
      expect(res.body.length).toBeLessThan(body.length / 2);
      expect(decode(res.body).toString()).toBe(body);
    }
  });

  it('sends small bodies, other types, 304s and clients without an encoding as they are', async () => {
    const tiny = await raw('/small', 'gzip, br');
    expect(tiny.headers['content-encoding']).toBeUndefined();
    expect(tiny.body.toString()).toBe(small);
    const png = await raw('/png', 'gzip, br');
    expect(png.headers['content-encoding']).toBeUndefined();
    expect(png.body.length).toBe(5000);
    expect((await raw('/not-modified', 'br')).status).toBe(304);
    const plain = await raw('/large');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(Number(plain.headers['content-length'])).toBe(large.length);
    expect(plain.body.toString()).toBe(large);
    expect(plain.headers.vary).toMatch(/Accept-Encoding/);
  });

  it('answers HEAD with the GET body’s length and no body', async () => {
    const head = await raw('/medium', 'br', 'HEAD');
    expect(head.status).toBe(200);
    expect(Number(head.headers['content-length'])).toBe(medium.length);
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.body.length).toBe(0);
  });
});

describe('gzip answers assembled from kept segments (src/http/gzipSegments.ts)', () => {
  it('make one ordinary gzip stream of any combination of segments', () => {
    const cache = new SegmentCache(1 << 20);
    const year = (y: number) => `"${y}":{"tasmax":[${Array.from({ length: 366 }, (_, i) => (280 + Math.sin(i + y)).toFixed(2)).join(',')}]}`;
    for (const years of [[2006], [2006, 2007, 2008], [2008, 2006]]) {
      // Text outside ASCII too: the CRC and length are of its UTF-8 bytes.
      const pieces = [{ text: '{"city":"Cañon City, Española","data":{' }, ...years.flatMap((y, i) => [...(i > 0 ? [{ text: ',' }] : []), { text: year(y), key: String(y) }]), { text: '}}' }];
      const gz = gzipPieces(pieces, cache);
      expect(zlib.gunzipSync(gz).toString()).toBe(pieces.map((p) => p.text).join(''));
      // One member: a reader that stops after the first member (curl, Chromium) still gets everything.
      expect(gz.subarray(10).indexOf(Buffer.from([0x1f, 0x8b, 8]))).toBe(-1);
    }
    expect(cache.size).toBeGreaterThan(0);
  });

  it('keep at most their byte budget, least recently used dropped first', () => {
    const cache = new SegmentCache(3000);
    const text = (i: number) => `${i}:` + 'abcdefghij'.repeat(50 + i);
    for (let i = 0; i < 50; i++) cache.get(String(i), text(i));
    expect(cache.size).toBeLessThanOrEqual(3000);
    // A kept segment holds its own bytes, not the compressor's whole output chunk.
    const kept = cache.get('49', text(49));
    expect(kept.buffer.byteLength).toBe(kept.length);
  });
});
