/**
 * The load generator, run as its own process by bench/run.ts so that it does not share the
 * server's event loop. The paths are requested in order, wrapping around only if the run outlasts
 * them. Uses wrk (Debian package `wrk`, C, light on the CPU it shares with the
 * server) when it is installed, else autocannon from npm. Input: one JSON file named by its argument; output: one
 * JSON line with requests, rps, p50 and p99 (ms), non2xx, errors, bytes.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

interface LoadSpec {
  url: string;
  token: string;
  paths: string[];
  connections: number;
  duration: number;
  /** The Accept-Encoding header to send; none when absent. */
  acceptEncoding?: string;
}

const spec = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as LoadSpec;

function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // wrk --version exits 1 after printing its version.
    return (err as { status?: number }).status === 1;
  }
}

async function withAutocannon() {
  let next = 0;
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.duration,
    headers: { authorization: `Token ${spec.token}`, ...(spec.acceptEncoding ? { 'accept-encoding': spec.acceptEncoding } : {}) },
    requests: [
      {
        setupRequest: (req) => {
          req.path = spec.paths[next++ % spec.paths.length]!;
          return req;
        },
      },
    ],
  });
  return {
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    bytes: result.throughput.total,
  };
}

function withWrk() {
  const pathsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wrk-')), 'paths.txt');
  fs.writeFileSync(pathsFile, spec.paths.join('\n') + '\n');
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'wrk-paths.lua');
  const out = execFileSync('wrk', ['-t1', `-c${spec.connections}`, `-d${spec.duration}s`, '--timeout', '10s', '-s', script, spec.url], {
    env: { ...process.env, WRK_PATHS: pathsFile, WRK_TOKEN: spec.token, WRK_ACCEPT_ENCODING: spec.acceptEncoding ?? '' },
    encoding: 'utf8',
  });
  const line = out.split('\n').find((l) => l.startsWith('{'));
  if (!line) throw new Error(`wrk printed no results:\n${out}`);
  return JSON.parse(line);
}

const result = process.env.BENCH_LOADGEN === 'autocannon' || !hasWrk() ? { tool: 'autocannon', ...(await withAutocannon()) } : { tool: 'wrk', ...withWrk() };
console.log(JSON.stringify(result));
