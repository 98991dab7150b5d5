// Figure 1: sessions classified per second with 50 rules, end to end through
// SessionClassifier.classify (rules cache stamp check in the KV, previous verdicts read, verdicts
// and tag facts written), against pure evaluation of the same sessions with the same compiled
// rules in the same round. Every round classifies fresh sessions, so every verdict is a first
// verdict and is written, as for sessions the live service sees for the first time.
import { randomUUID } from 'node:crypto';
import { SessionClassifier } from '@spoor/rule-service';
import type { Kv } from '@spoor/kv';
import { compileRules, RulesCache, type RuleSet } from '@spoor/rules';
import type { SessionState } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import type { SeededRandom } from '../read/seeded-random.js';
import { CallTimings, type CallTiming } from './call-timings.js';
import { ruleCatalogue } from './rule-catalogue.js';
import { generateSessions } from './session-generator.js';

export interface ThroughputRound {
  pureRate: number;
  endToEndRate: number;
}

export interface ThroughputResult {
  sessionsPerRound: number;
  batch: number;
  rounds: ThroughputRound[];
  /** Medians over the rounds; ratio = endToEndRate / pureRate. */
  pureRate: number;
  endToEndRate: number;
  ratio: number;
  matchedRulesPerSession: number;
  tagFactsPerSession: number;
  /** Store and KV calls of the end-to-end passes, all rounds together. */
  calls: Record<string, CallTiming>;
  /** Share of the end-to-end time spent waiting on the store and the KV. */
  storeShare: number;
}

export interface ThroughputContext {
  store: Store;
  kv: Kv;
  timings: CallTimings;
  rng: SeededRandom;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function pureRate(set: RuleSet, sessions: SessionState[]): { rate: number; matched: number; tags: number } {
  let matched = 0;
  let tags = 0;
  const t0 = performance.now();
  for (const s of sessions) {
    const verdict = set.classify(s as unknown as Record<string, unknown>);
    matched += verdict.rule_ids.length;
    tags += verdict.tags.length;
  }
  return { rate: sessions.length / ((performance.now() - t0) / 1000), matched, tags };
}

async function endToEnd(
  classifier: SessionClassifier,
  projectId: string,
  sessions: SessionState[],
  batch: number,
): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < sessions.length; i += batch) {
    const part = sessions.slice(i, i + batch);
    const outcome = await classifier.classify(projectId, part, { force: false, announce: false });
    if (outcome.written !== part.length)
      throw new Error(`classify wrote ${outcome.written} verdicts for ${part.length} new sessions`);
  }
  return sessions.length / ((performance.now() - t0) / 1000);
}

async function projectWithRules(ctx: ThroughputContext): Promise<{ projectId: string; set: RuleSet }> {
  const projectId = randomUUID();
  const rules = ruleCatalogue(projectId, Date.now());
  for (const r of rules) await ctx.store.rules.put(r);
  await RulesCache.changed(ctx.kv, projectId);
  const set = compileRules(rules);
  if (set.invalid.length) throw new Error(`rules left out as invalid: ${set.invalid.join(', ')}`);
  return { projectId, set };
}

export async function measureThroughput(
  ctx: ThroughputContext,
  o: { sessions: number; rounds: number; batch: number },
): Promise<ThroughputResult> {
  const { projectId, set } = await projectWithRules(ctx);
  const classifier = new SessionClassifier({ store: ctx.store, kv: ctx.kv, clock: Date.now });
  // Warm-up, not counted: the JIT on json-logic-js, the store's staging tables and connections.
  const warm = generateSessions(projectId, ctx.rng, Math.min(o.sessions, 4 * o.batch));
  for (let i = 0; i < 3; i++) pureRate(set, warm);
  await endToEnd(classifier, projectId, warm, o.batch);
  ctx.timings.reset();
  const rounds: ThroughputRound[] = [];
  let matched = 0;
  let tags = 0;
  let e2eSec = 0;
  for (let r = 0; r < o.rounds; r++) {
    const sessions = generateSessions(projectId, ctx.rng, o.sessions);
    const pure = pureRate(set, sessions);
    const endToEndRate = await endToEnd(classifier, projectId, sessions, o.batch);
    rounds.push({ pureRate: pure.rate, endToEndRate });
    matched += pure.matched;
    tags += pure.tags;
    e2eSec += sessions.length / endToEndRate;
  }
  const n = o.sessions * o.rounds;
  const pure = median(rounds.map((r) => r.pureRate));
  const e2e = median(rounds.map((r) => r.endToEndRate));
  return {
    sessionsPerRound: o.sessions,
    batch: o.batch,
    rounds,
    pureRate: pure,
    endToEndRate: e2e,
    ratio: e2e / pure,
    matchedRulesPerSession: matched / n,
    tagFactsPerSession: tags / n,
    calls: ctx.timings.snapshot(),
    storeShare: ctx.timings.totalMs() / 1000 / e2eSec,
  };
}
