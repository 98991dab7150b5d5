import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { AutocannonResult } from '../ingest/load-runner.js';

/** What the load generator child is told to do. */
export interface ReadLoadSpec {
  url: string;
  token: string;
  paths: string[];
  connections: number;
  durationSec: number;
}

/** Latency over every response, in ms with sub-millisecond precision. */
export interface ExactLatency {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface ReadLoadResult {
  autocannon: AutocannonResult;
  exact: ExactLatency;
}

const GENERATOR = fileURLToPath(new URL('./read-load-generator.js', import.meta.url));

/** Runs one load in a separate process (see read-load-generator.ts) and returns its result. */
export function runReadLoad(spec: ReadLoadSpec): Promise<ReadLoadResult> {
  return new Promise((resolve, reject) => {
    // The spec goes on stdin: a thousand session paths exceed Linux's 128 KiB limit on one argument.
    const child = spawn(process.execPath, [GENERATOR], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdin.end(JSON.stringify(spec));
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`load generator exited with ${code}`));
      try {
        resolve(JSON.parse(out) as ReadLoadResult);
      } catch (err) {
        reject(new Error(`load generator printed no result: ${(err as Error).message}: ${out.slice(0, 300)}`));
      }
    });
  });
}
