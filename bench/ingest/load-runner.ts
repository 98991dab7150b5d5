import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What the load generator child is told to do. */
export interface LoadSpec {
  url: string;
  /** The events' origin, also sent as the browser's Origin header. */
  origin: string;
  /** The events' project; absent: BENCH_PROJECT. */
  project?: string;
  connections: number;
  durationSec: number;
  sessions: number;
  /** Events per request (1: /v1/event, more: /v1/event/batch). */
  batch: number;
  /** Requests per second from all connections together; absent: as fast as answered. */
  requestsPerSec?: number;
}

/** The part of autocannon's result the benchmark reads (autocannon ships no types). */
export interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  statusCodeStats: Record<string, { count: number }>;
  requests: { mean: number; stddev: number; total: number; sent: number };
  latency: { mean: number; p50: number; p90: number; p99: number; max: number };
}

const GENERATOR = fileURLToPath(new URL('./load-generator.js', import.meta.url));

/** Runs one load in a separate process (see load-generator.ts) and returns its result. */
export function runLoad(spec: LoadSpec): Promise<AutocannonResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [GENERATOR, JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`load generator exited with ${code}`));
      try {
        resolve(JSON.parse(out) as AutocannonResult);
      } catch (err) {
        reject(new Error(`load generator printed no result: ${(err as Error).message}: ${out.slice(0, 300)}`));
      }
    });
  });
}
