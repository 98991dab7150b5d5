// Figure 2: the worker's backfill handler (services/worker/src/backfill-job.ts) over a project of
// N stored sessions with the 50 rules, against paging through the same sessions with the same
// call and page size (store.sessions.page, 500), measured before and after the backfill in the
// same run. The sessions have never been classified (written straight into the store), so the
// backfill's forced writes are all first verdicts and first tag facts.
import { randomUUID } from 'node:crypto';
import { SessionClassifier } from '@spoor/rule-service';
import type { Kv } from '@spoor/kv';
import { createLogger } from '@spoor/service-log';
import { RulesCache } from '@spoor/rules';
import type { JobRecord, SessionState } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { backfillJob } from '@spoor/worker';
import type { SeededRandom } from '../read/seeded-random.js';
import type { CallTiming, CallTimings } from './call-timings.js';
import { ruleCatalogue } from './rule-catalogue.js';
import { generateSessions } from './session-generator.js';

const LOAD_CHUNK = 5_000;
const PAGE = 500;

export interface BackfillResult {
  sessions: number;
  /** Writing the sessions in (not part of any ratio). */
  loadSec: number;
  /** Page-through alone, before and after the backfill; the baseline is their mean. */
  pageOnlySec: [number, number];
  backfillSec: number;
  sessionsPerSec: number;
  /** backfillSec / mean(pageOnlySec). */
  ratio: number;
  /** What the handler returned. */
  outcome: unknown;
  /** Store and KV calls during the backfill. */
  calls: Record<string, CallTiming>;
  storeShare: number;
}

export interface BackfillContext {
  store: Store;
  kv: Kv;
  timings: CallTimings;
  rng: SeededRandom;
}

async function loadSessions(ctx: BackfillContext, projectId: string, n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i += LOAD_CHUNK)
    await ctx.store.sessions.upsert(generateSessions(projectId, ctx.rng, Math.min(LOAD_CHUNK, n - i)));
  const loadSec = (performance.now() - t0) / 1000;
  const stored = await ctx.store.sessions.count(projectId);
  if (stored !== n) throw new Error(`loaded ${n} sessions, the store counts ${stored}`);
  return loadSec;
}

async function pageThrough(store: Store, projectId: string, expected: number): Promise<number> {
  const t0 = performance.now();
  let cursor: string | null = null;
  let seen = 0;
  for (;;) {
    const page: SessionState[] = await store.sessions.page(projectId, cursor, PAGE);
    if (page.length === 0) break;
    seen += page.length;
    cursor = page[page.length - 1]!.session_id;
  }
  if (seen !== expected) throw new Error(`paged through ${seen} sessions, expected ${expected}`);
  return (performance.now() - t0) / 1000;
}

function backfillRecord(projectId: string, now: number): JobRecord {
  return {
    job_id: randomUUID(),
    account_id: 'bench-classify',
    project_id: projectId,
    kind: 'backfill',
    status: 'running',
    request: {},
    created_at: now,
    started_at: now,
    finished_at: null,
    progress: null,
    result: null,
    error: null,
    attempts: 1,
    worker: 'bench-classify',
    updated_at: now,
  };
}

async function runBackfill(ctx: BackfillContext, projectId: string): Promise<{ sec: number; outcome: unknown }> {
  const deps = { store: ctx.store, kv: ctx.kv, clock: Date.now };
  const handler = backfillJob({ ...deps, classifier: new SessionClassifier(deps) });
  const jobCtx = {
    progress: async () => {},
    heartbeat: async () => {},
    signal: new AbortController().signal,
    logger: createLogger('bench-classify', 'warn'),
  };
  const t0 = performance.now();
  const outcome = await handler(backfillRecord(projectId, Date.now()), jobCtx);
  return { sec: (performance.now() - t0) / 1000, outcome };
}

export async function measureBackfill(
  ctx: BackfillContext,
  n: number,
  log: (line: string) => void,
): Promise<BackfillResult> {
  const projectId = randomUUID();
  for (const r of ruleCatalogue(projectId, Date.now())) await ctx.store.rules.put(r);
  await RulesCache.changed(ctx.kv, projectId);
  const loadSec = await loadSessions(ctx, projectId, n);
  log(`loaded ${n} sessions in ${loadSec.toFixed(1)} s`);
  const before = await pageThrough(ctx.store, projectId, n);
  ctx.timings.reset();
  const { sec, outcome } = await runBackfill(ctx, projectId);
  const calls = ctx.timings.snapshot();
  const storeShare = ctx.timings.totalMs() / 1000 / sec;
  const after = await pageThrough(ctx.store, projectId, n);
  const done = (outcome as { sessions?: number }).sessions;
  if (done !== n) throw new Error(`the backfill reported ${String(done)} sessions, expected ${n}`);
  return {
    sessions: n,
    loadSec,
    pageOnlySec: [before, after],
    backfillSec: sec,
    sessionsPerSec: n / sec,
    ratio: sec / ((before + after) / 2),
    outcome,
    calls,
    storeShare,
  };
}
