// One round of `npm run bench:scale`: a fresh deployment on the local engines, the raw topic
// pre-filled, then `copies` processes of each consumer started together and timed until every
// stage drained; then what the store holds, checked.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@spoor/config';
import { createLogger } from '@spoor/service-log';
import { openAdapters } from '@spoor/runtime';
import { prefillRaw } from '../pipeline/raw-prefill.js';
import { readCpuSeconds } from '../ingest/proc-stats.js';
import { freePort, ServerChild } from '../ingest/server-child.js';
import { registerBenchProject, spoorEnv } from '../ingest/spoor-deployment.js';
import type { ScaleOptions } from './scale-options.js';

const HOST_MAIN = fileURLToPath(new URL('../../../services/host/dist/src/main.js', import.meta.url));
const CONSUMERS = ['enricher', 'sessionizer', 'classifier'] as const;
const DRAIN_TIMEOUT_MS = 20 * 60_000;

export interface RoundResult {
  copies: number;
  events: number;
  /** From launching the processes to every group's lag at 0 (start-up and rebalances included). */
  seconds: number;
  perSec: number;
  /** CPU seconds of all consumer processes together. */
  cpuSec: number;
  stored: { raw: number; enriched: number; sessionEvents: number; sessions: number; sessionsInOrder: number };
}

type Adapters = Awaited<ReturnType<typeof openAdapters>>;

async function withAdapters<T>(env: Record<string, string>, use: (a: Adapters) => Promise<T>): Promise<T> {
  const adapters = await openAdapters(loadConfig(env), createLogger('bench', 'error'));
  try {
    return await use(adapters);
  } finally {
    await adapters.close();
  }
}

/** Sum of the lags of the three consumer groups on their input topics. */
async function totalLag(a: Adapters, prefix: string): Promise<number> {
  const { bus, topics } = a;
  const lags = await Promise.all([
    bus.lag(topics.rawEvents, `${prefix}enricher`),
    bus.lag(topics.enrichedEvents, `${prefix}sessionizer`),
    bus.lag(topics.sessionUpdates, `${prefix}classifier`),
  ]);
  return lags.reduce((n, l) => n + l, 0);
}

/** Waits until the events are stored and every group caught up, reading every 200 ms. */
async function drained(env: Record<string, string>, projectId: string, events: number): Promise<void> {
  const prefix = env['SPOOR_TOPIC_PREFIX']!;
  await withAdapters(env, async (a) => {
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    for (;;) {
      if (Date.now() > deadline) throw new Error('the consumers did not drain within 20 minutes');
      const counted = await a.store.events.countEnriched(projectId);
      if (counted >= events && (await totalLag(a, prefix)) === 0) return;
      await new Promise((r) => setTimeout(r, 200));
    }
  });
}

/** Raw, enriched, counted in sessions; and how many sessions span exactly their events (order kept). */
async function storedCounts(
  env: Record<string, string>,
  projectId: string,
  sessions: number,
): Promise<RoundResult['stored']> {
  return withAdapters(env, async ({ store }) => {
    const summaries = await store.sessions.list(projectId, { limit: sessions + 10 });
    let inOrder = 0;
    for (const s of summaries.slice(0, 50)) {
      const evs = await store.events.sessionEvents(projectId, s.session_id);
      const ts = evs.map((e) => e.timestamp);
      if (evs.length === s.event_count && s.first_event_at === Math.min(...ts) && s.last_event_at === Math.max(...ts))
        inOrder++;
    }
    return {
      raw: await store.events.countRaw(projectId),
      enriched: await store.events.countEnriched(projectId),
      sessionEvents: summaries.reduce((n, s) => n + s.event_count, 0),
      sessions: summaries.length,
      sessionsInOrder: inOrder,
    };
  });
}

export async function runRound(
  copies: number,
  o: ScaleOptions,
  log: (line: string) => void,
): Promise<RoundResult | { skipped: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), `spoor-bench-scale-${copies}-`));
  const children: ServerChild[] = [];
  try {
    const env = await spoorEnv('kafka', dataDir, await freePort());
    if (!env) return { skipped: 'Kafka, ClickHouse or Redis could not be started by @spoor/testkit' };
    const project = await registerBenchProject(env);
    await withAdapters(env, ({ bus, topics }) => prefillRaw(bus, topics.rawEvents, project.project_id, o, log));
    log(`${copies} cop${copies === 1 ? 'y' : 'ies'}: pre-filled ${o.events.toLocaleString('en')} raw events`);
    const started = performance.now();
    for (const kind of CONSUMERS) {
      for (let c = 0; c < copies; c++) {
        const port = await freePort();
        const childEnv = {
          ...env,
          SPOOR_SERVICES: kind,
          SPOOR_HANDOFF: 'bus',
          SPOOR_PORT: String(port),
          SPOOR_HEALTH_HTTP: 'true',
          SPOOR_DATA_DIR: await mkdtemp(join(dataDir, `${kind}-`)),
        };
        children.push(new ServerChild(`${kind}#${c + 1}`, HOST_MAIN, [], childEnv));
      }
    }
    await drained(env, project.project_id, o.events);
    const seconds = (performance.now() - started) / 1000;
    const cpuSec = children.reduce((n, ch) => n + readCpuSeconds(ch.pid), 0);
    await Promise.all(children.splice(0).map((ch) => ch.stop()));
    const stored = await storedCounts(env, project.project_id, o.sessions);
    return { copies, events: o.events, seconds, perSec: o.events / seconds, cpuSec, stored };
  } finally {
    await Promise.all(children.map((ch) => ch.stop()));
    await rm(dataDir, { recursive: true, force: true });
  }
}
