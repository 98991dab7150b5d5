// parseRulesYaml on a worker thread (issue 42): the `yaml` package parses a 12 KB flow document
// in 20–50 ms and the 256 KB a rules test may send in 0.3–1 s, all of it synchronous, so on the
// HTTP thread one request held every other. Only the text goes over and the validated rules
// come back (small: the document is at most 256 KB); the sessions stay on the HTTP thread,
// where copying them to a worker would cost as much as evaluating them (rule-test.ts slices that).
import { Worker } from 'node:worker_threads';
import type { RulesYamlResult } from './rules-yaml.js';

const WORKER = new URL('./rules-yaml-worker.js', import.meta.url);

interface Pending {
  resolve(result: RulesYamlResult): void;
  reject(err: Error): void;
}

let worker: Worker | null = null;
let nextId = 0;
const pending = new Map<number, Pending>();

/** Every pending parse fails with `err`; the next call starts a new worker. */
function lose(err: Error): void {
  worker = null;
  for (const p of pending.values()) p.reject(err);
  pending.clear();
}

function started(): Worker {
  if (worker) return worker;
  // One worker, started on first use, parsing one document at a time; it holds the process open
  // only while a parse is pending (ref'd per call, unref'd when none is left), and is bounded so
  // that a hostile document cannot take the process's memory.
  const w = new Worker(WORKER, { resourceLimits: { maxOldGenerationSizeMb: 256 } });
  w.on('message', ({ id, result, error }: { id: number; result?: RulesYamlResult; error?: string }) => {
    const p = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) w.unref();
    if (error !== undefined) p?.reject(new Error(error));
    else p?.resolve(result!);
  });
  w.on('error', (err) => {
    if (worker === w) lose(err);
  });
  w.on('exit', (code) => {
    if (worker === w) lose(new Error(`the rules parser thread exited with code ${code}`));
  });
  worker = w;
  return w;
}

/** parseRulesYaml (rules-yaml.ts), answered from a worker thread. */
export function parseRulesYamlOffThread(text: string): Promise<RulesYamlResult> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    const w = started();
    w.ref();
    w.postMessage({ id, text });
  });
}
