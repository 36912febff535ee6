/**
 * The load generator, run as its own process by bench/run.ts so that it does not share the
 * server's event loop. Input: one JSON argument; output: one JSON line with the results.
 */
import autocannon from 'autocannon';

interface LoadSpec {
  url: string;
  token: string;
  paths: string[];
  connections: number;
  duration: number;
}

const spec = JSON.parse(process.argv[2]!) as LoadSpec;
let next = 0;

const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.duration,
  headers: { authorization: `Token ${spec.token}` },
  requests: [
    {
      // Spread the requests over the prepared paths so no single response dominates.
      setupRequest: (req) => {
        req.path = spec.paths[next++ % spec.paths.length]!;
        return req;
      },
    },
  ],
});

console.log(
  JSON.stringify({
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    bytes: result.throughput.total,
  }),
);
