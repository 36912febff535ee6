/**
 * A load generator that times every request, run as its own process by bench/catalog.ts: each
 * path of the spec once, `connections` at a time over keep-alive sockets, the body read to its end
 * (not decompressed: the client's cost is not the server's). Prints one JSON line: requests,
 * median and p95 in ms, non2xx, errors, mean bytes, and each request's ms in the spec's order (inOrder). (bench/load.ts, with wrk or autocannon, gives no p95.)
 */
import fs from 'node:fs';
import http from 'node:http';

interface Spec {
  url: string;
  token: string;
  paths: string[];
  connections: number;
  acceptEncoding?: string;
}

const spec = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as Spec;
const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections });
const base = new URL(spec.url);

function timed(path: string): Promise<{ ms: number; status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.get(
      {
        agent,
        host: base.hostname,
        port: base.port,
        path,
        headers: { authorization: `Token ${spec.token}`, ...(spec.acceptEncoding ? { 'accept-encoding': spec.acceptEncoding } : {}) },
      },
      (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, status: res.statusCode ?? 0, bytes }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

const times: number[] = [];
const inOrder: number[] = [];
let non2xx = 0;
let errors = 0;
let bytes = 0;
let next = 0;
const firstFailures: string[] = [];
// Every connection open, and this process's request path run once, before the clock starts: the
// first timed request of each run paid a TCP connect and cold code, which in a run of three
// requests (the century's relative_to and warming-level rounds) was a third of the samples.
await Promise.all(Array.from({ length: spec.connections }, () => timed('/healthz')));
await Promise.all(
  Array.from({ length: spec.connections }, async () => {
    while (next < spec.paths.length) {
      const at = next++;
      const path = spec.paths[at]!;
      try {
        const r = await timed(path);
        times.push(r.ms);
        inOrder[at] = r.ms;
        bytes += r.bytes;
        if (r.status < 200 || r.status >= 300) {
          non2xx++;
          if (firstFailures.length < 3) firstFailures.push(`${r.status} ${path}`);
        }
      } catch (err) {
        errors++;
        if (firstFailures.length < 3) firstFailures.push(`${String(err)} ${path}`);
      }
    }
  }),
);
agent.destroy();
times.sort((a, b) => a - b);
const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN;
console.log(JSON.stringify({ requests: times.length, median: at(0.5), p95: at(0.95), non2xx, errors, bytes: times.length ? bytes / times.length : 0, firstFailures, inOrder }));
