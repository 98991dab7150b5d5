// Each pipeline stage draining its input topic alone, in its own runServices() with
// SPOOR_HANDOFF=bus (so it reads and writes the topics as a split deployment does), and its floor:
// JSON.parse of messages of the same shape and count plus the stage's one unavoidable store call,
// in the same batch sizes, on a second store of the same engine.
import { loadConfig, type ServiceName } from '@spoor/config';
import { createLogger } from '@spoor/service-log';
import { openAdapters, runServices, type ServiceModule } from '@spoor/runtime';
import { classifierModule } from '@spoor/classifier';
import { enricherModule } from '@spoor/enricher';
import { sessionizerModule, emptySession } from '@spoor/sessionizer';
import type { EnrichedEvent, RawEvent, SessionSummary } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { rawBenchEvent } from './raw-prefill.js';

export interface StageResult {
  stage: ServiceName;
  messages: number;
  seconds: number;
  perSec: number;
  /** Process CPU (all threads: DuckDB's own included) per message, µs. */
  cpuUsPerMessage: number;
}

const logger = createLogger('bench', 'error');

const STAGES: Array<{
  stage: ServiceName;
  module: ServiceModule;
  input: 'rawEvents' | 'enrichedEvents' | 'sessionUpdates';
  group: string;
}> = [
  { stage: 'enricher', module: enricherModule, input: 'rawEvents', group: 'enricher' },
  { stage: 'sessionizer', module: sessionizerModule, input: 'enrichedEvents', group: 'sessionizer' },
  { stage: 'classifier', module: classifierModule, input: 'sessionUpdates', group: 'classifier' },
];

export const stageNames = STAGES.map((s) => s.stage);

function stageConfig(env: Record<string, string>, stage: ServiceName) {
  return loadConfig({ ...env, SPOOR_SERVICES: stage, SPOOR_HANDOFF: 'bus', SPOOR_LOG_LEVEL: 'error' });
}

/** Runs one stage until its consumer group has no lag. */
export async function runStage(env: Record<string, string>, stage: ServiceName): Promise<StageResult> {
  const spec = STAGES.find((s) => s.stage === stage)!;
  const config = stageConfig(env, stage);
  const group = `${config.topicPrefix}${spec.group}`;
  // Counted before the stage starts: it consumes from its first moment.
  const messages = await withAdapters(env, ({ bus, topics }) => bus.lag(topics[spec.input], group));
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  const running = await runServices(config, [spec.module], logger);
  const { bus, topics } = running.adapters;
  try {
    while ((await bus.lag(topics[spec.input], group)) > 0) await new Promise((r) => setTimeout(r, 100));
  } finally {
    await running.stop();
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    stage,
    messages,
    seconds,
    perSec: messages / seconds,
    cpuUsPerMessage: (cpu.user + cpu.system) / Math.max(1, messages),
  };
}

/** Opens the adapters of the stage's config (the same engines), runs `use`, closes them. */
export async function withAdapters<T>(
  env: Record<string, string>,
  use: (a: Awaited<ReturnType<typeof openAdapters>>) => Promise<T>,
): Promise<T> {
  const adapters = await openAdapters(stageConfig(env, 'enricher'), logger);
  try {
    return await use(adapters);
  } finally {
    await adapters.close();
  }
}

const NO_ENRICHMENT = {
  geo: { country: null, region: null, city: null, latitude: null, longitude: null },
  browser: { name: null, version: null },
  os: { name: null, version: null },
  device: { type: null, vendor: null, model: null },
  bot: false,
  path: null,
  query: {},
  utm: { source: null, medium: null, campaign: null, term: null, content: null },
};

/** Times only what `step` does with each batch of freshly made messages (making them is not timed). */
async function timed(
  count: number,
  batch: number,
  make: (from: number, to: number) => string[],
  step: (values: string[]) => Promise<void>,
  stage: ServiceName,
): Promise<StageResult> {
  let ms = 0;
  let cpuUs = 0;
  for (let i = 0; i < count; i += batch) {
    const values = make(i, Math.min(count, i + batch));
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await step(values);
    const c = process.cpuUsage(c0);
    cpuUs += c.user + c.system;
    ms += performance.now() - t0;
  }
  return { stage, messages: count, seconds: ms / 1000, perSec: count / (ms / 1000), cpuUsPerMessage: cpuUs / count };
}

export interface FloorInput {
  projectId: string;
  events: number;
  sessions: number;
  perSession: number;
  /** Session updates the classifier consumed (the sessionizer writes one per changed session per batch). */
  updates: number;
}

/**
 * The floor of each stage on `store` (a fresh store of the stage's engine): enricher — parse raw
 * events, insert their raw and enriched rows; sessionizer — parse enriched events, upsert one
 * summary per session of the batch; classifier — parse summaries, read their verdicts.
 */
export async function runFloors(store: Store, o: FloorInput): Promise<StageResult[]> {
  const now = Date.now();
  const raw = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, k) => rawBenchEvent(o.projectId, from + k, o.sessions, o.perSession, now));
  const enricher = await timed(
    o.events,
    5000,
    (a, b) => raw(a, b).map((e) => JSON.stringify(e)),
    async (values) => {
      const parsed = values.map((v) => JSON.parse(v) as RawEvent);
      await store.events.insertEvents(
        parsed.map((e) => ({ raw: e, enriched: { ...e, ...NO_ENRICHMENT } as EnrichedEvent })),
      );
    },
    'enricher',
  );
  const sessionizer = await timed(
    o.events,
    2000,
    (a, b) => raw(a, b).map((e) => JSON.stringify({ ...e, ...NO_ENRICHMENT })),
    async (values) => {
      const latest = new Map<string, EnrichedEvent>();
      for (const v of values) {
        const e = JSON.parse(v) as EnrichedEvent;
        latest.set(e.session_id, e);
      }
      await store.sessions.upsert(
        [...latest.values()].map((e) => ({ ...emptySession(e), event_count: 1, updated_at: now })),
      );
    },
    'sessionizer',
  );
  const summary = (i: number) => {
    const { seen: _s, ...s } = emptySession({
      ...rawBenchEvent(o.projectId, (i % o.sessions) * o.perSession, o.sessions, o.perSession, now),
      ...NO_ENRICHMENT,
    } as EnrichedEvent);
    return s as SessionSummary;
  };
  const classifier = await timed(
    o.updates,
    2000,
    (a, b) => Array.from({ length: b - a }, (_, k) => JSON.stringify(summary(a + k))),
    async (values) => {
      const parsed = values.map((v) => JSON.parse(v) as SessionSummary);
      await store.classifications.getMany(o.projectId, [...new Set(parsed.map((s) => s.session_id))]);
    },
    'classifier',
  );
  return [enricher, sessionizer, classifier];
}
