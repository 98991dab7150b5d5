// POST /v1/rules/test on a worker thread (issue 42): the `yaml` package parses a 12 KB flow
// document in 20–50 ms and the 256 KB a rules test may send in 0.3–1 s, and its 4 MB of JSON
// took ~100 ms to parse, walk and collect, all of it synchronous, so on the HTTP thread one
// request held every other. The request's text goes over (rule-test-text.ts): its JSON, its
// rules document and its sessions are parsed and evaluated there, and only the verdicts (or what
// was wrong) come back.
import { Worker } from 'node:worker_threads';
import type { RuleTestReply } from './rule-test-text.js';

const WORKER = new URL('./rules-yaml-worker.js', import.meta.url);

interface Pending {
  resolve(result: unknown): void;
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
  w.on('message', ({ id, result, error }: { id: number; result?: unknown; error?: string }) => {
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

/** POST /v1/rules/test from its body's text (rule-test-text.ts), answered from the worker thread. */
export function testRulesOffThread(text: string): Promise<RuleTestReply> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
    const w = started();
    w.ref();
    w.postMessage({ id, text });
  });
}
