// The worker thread of rules-yaml-thread.ts: parses and validates rules documents.
import { parentPort } from 'node:worker_threads';
import { parseRulesYaml } from './rules-yaml.js';

parentPort!.on('message', ({ id, text }: { id: number; text: string }) => {
  let reply: { id: number; result?: unknown; error?: string };
  try {
    reply = { id, result: parseRulesYaml(text) };
  } catch (err) {
    reply = { id, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(reply);
});
