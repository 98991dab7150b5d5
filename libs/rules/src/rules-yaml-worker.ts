// The worker thread of rules-yaml-thread.ts: runs whole rules tests from their request's text
// (rule-test-text.ts), one at a time.
import { parentPort } from 'node:worker_threads';
import { testRulesFromText } from './rule-test-text.js';

parentPort!.on('message', ({ id, text }: { id: number; text: string }) => {
  testRulesFromText(text).then(
    (result) => parentPort!.postMessage({ id, result }),
    (err: unknown) => parentPort!.postMessage({ id, error: err instanceof Error ? err.message : String(err) }),
  );
});
