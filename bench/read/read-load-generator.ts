// The load generator, run as its own process so that it never shares an event loop with the
// server it measures. Reads a ReadLoadSpec as JSON from stdin, drives autocannon's API with GETs
// cycling over the spec's paths, and prints one JSON line: autocannon's result plus latency
// percentiles of its own. autocannon's histogram has 1 ms resolution, which rounds /healthz to
// 0 or 1 ms and makes a ratio to it meaningless; every response event carries the exact time.
import { createRequire } from 'node:module';
import type { AutocannonResult } from '../ingest/load-runner.js';
import type { ExactLatency, ReadLoadResult, ReadLoadSpec } from './read-load-runner.js';

interface AutocannonRequest {
  method: 'GET';
  path: string;
}
interface AutocannonClient {
  setRequests(requests: AutocannonRequest[]): void;
}
interface AutocannonInstance {
  on(
    event: 'response',
    listener: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void,
  ): void;
}
type Autocannon = (
  opts: {
    url: string;
    connections: number;
    duration: number;
    headers: Record<string, string>;
    requests: AutocannonRequest[];
    setupClient: (client: AutocannonClient) => void;
  },
  done: (err: Error | null, result: AutocannonResult) => void,
) => AutocannonInstance;

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function exactLatency(samples: number[]): ExactLatency {
  const sorted = Float64Array.from(samples).sort();
  const mean = samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length);
  return {
    count: sorted.length,
    mean,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: percentile(sorted, 100),
  };
}

function runLoad(spec: ReadLoadSpec): Promise<ReadLoadResult> {
  const requests = spec.paths.map((path) => ({ method: 'GET' as const, path }));
  // Each connection starts at its own place in the path list, so all session ids see traffic.
  const stride = Math.max(1, Math.floor(requests.length / spec.connections));
  let clients = 0;
  const setupClient = (client: AutocannonClient) => {
    const offset = (clients++ * stride) % requests.length;
    client.setRequests([...requests.slice(offset), ...requests.slice(0, offset)]);
  };
  const samples: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        duration: spec.durationSec,
        headers: { authorization: `Bearer ${spec.token}`, accept: 'application/json' },
        requests,
        setupClient,
      },
      (err, result) => (err ? reject(err) : resolve({ autocannon: result, exact: exactLatency(samples) })),
    );
    instance.on('response', (_client, _status, _bytes, ms) => samples.push(ms));
  });
}

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin.setEncoding('utf8')) text += chunk as string;
  return text;
}

const spec = JSON.parse(await readStdin()) as ReadLoadSpec;
const result = await runLoad(spec);
process.stdout.write(`${JSON.stringify(result)}\n`);
