// autocannon driven through its API with prebuilt ingest bodies: what every ingest load
// generator process runs (load-generator.ts for `npm run bench`, bench/cost's phased one).
import { createRequire } from 'node:module';
import { BENCH_PROJECT, benchBatchBody, benchEventBody, USER_AGENT } from './bench-event.js';
import type { AutocannonResult, LoadSpec } from './load-runner.js';

interface AutocannonRequest {
  body: string;
}
interface AutocannonClient {
  setRequests(requests: AutocannonRequest[]): void;
}
type Autocannon = (
  opts: {
    url: string;
    connections: number;
    duration: number;
    overallRate?: number;
    method: string;
    headers: Record<string, string>;
    requests: AutocannonRequest[];
    setupClient: (client: AutocannonClient) => void;
  },
  done: (err: Error | null, result: AutocannonResult) => void,
) => unknown;

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;

/** Runs `spec` for its duration and resolves with autocannon's result. */
export function runAutocannon(spec: LoadSpec): Promise<AutocannonResult> {
  // One prebuilt request per session, cycled by every connection, each starting at its own
  // offset so that all sessions see traffic. Building bodies per request (setupRequest) made
  // autocannon itself the bottleneck of the baseline on a 2-core machine; the timestamps are the
  // generator's start time, which the service accepts like any client delay.
  const now = Date.now();
  const batched = spec.batch > 1;
  const target = { origin: spec.origin, project: spec.project ?? BENCH_PROJECT };
  const requests = Array.from({ length: spec.sessions }, (_, i) => ({
    body: batched ? benchBatchBody(i, now, spec.batch, target) : benchEventBody(i, now, target),
  }));
  const stride = Math.max(1, Math.floor(spec.sessions / spec.connections));
  let clients = 0;
  const setupClient = (client: AutocannonClient) => {
    const offset = (clients++ * stride) % spec.sessions;
    client.setRequests([...requests.slice(offset), ...requests.slice(0, offset)]);
  };
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${spec.url}${batched ? '/v1/event/batch' : '/v1/event'}`,
        connections: spec.connections,
        duration: spec.durationSec,
        ...(spec.requestsPerSec ? { overallRate: spec.requestsPerSec } : {}),
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: spec.origin, 'user-agent': USER_AGENT },
        requests,
        setupClient,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}
