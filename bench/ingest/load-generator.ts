// The load generator, run as its own process so that it never shares an event loop with the
// server it measures. Takes a LoadSpec as JSON in argv[2], drives autocannon's API for the
// given duration and prints autocannon's result as one JSON line on stdout.
import { createRequire } from 'node:module';
import { benchBatchBody, benchEventBody } from './bench-event.js';
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

/**
 * A desktop Chrome: without a user agent the enricher flags every event as a bot and the
 * sessionizer skips it, which would measure a pipeline doing less than real traffic makes it do.
 */
const USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

function runLoad(spec: LoadSpec): Promise<AutocannonResult> {
  // One prebuilt request per session, cycled by every connection, each starting at its own
  // offset so that all sessions see traffic. Building bodies per request (setupRequest) made
  // autocannon itself the bottleneck of the baseline on a 2-core machine; the timestamps are the
  // generator's start time, which the service accepts like any client delay.
  const now = Date.now();
  const batched = spec.batch > 1;
  const requests = Array.from({ length: spec.sessions }, (_, i) => ({
    body: batched ? benchBatchBody(i, now, spec.batch) : benchEventBody(i, now),
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

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
const result = await runLoad(spec);
process.stdout.write(`${JSON.stringify(result)}\n`);
