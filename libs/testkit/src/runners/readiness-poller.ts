import { setTimeout as sleep } from 'node:timers/promises';

export interface PollOptions {
  /** Give up after this long. */
  timeoutMs: number;
  intervalMs?: number;
  /** Checked before each attempt; a non-null answer (e.g. "process exited") fails at once. */
  abortReason?: () => string | null;
}

/**
 * Retries `check` until it answers true. Readiness is judged by talking to the engine the
 * way a client would (list topics, GET /ping, PING), not by matching log lines, which
 * change between versions.
 */
export async function pollUntil(what: string, check: () => Promise<boolean>, options: PollOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  const interval = options.intervalMs ?? 100;
  for (;;) {
    const aborted = options.abortReason?.() ?? null;
    if (aborted !== null) throw new Error(`${what}: ${aborted}`);
    if (await check().catch(() => false)) return;
    if (Date.now() >= deadline) throw new Error(`${what}: not ready after ${options.timeoutMs} ms`);
    await sleep(interval);
  }
}
