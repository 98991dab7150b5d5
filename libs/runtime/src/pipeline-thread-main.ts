// The pipeline thread's entry (pipeline-thread.ts): opens the store and the KV, exposes them to
// the HTTP thread, and runs the consumer services on a bus whose log lives on that thread.
import { writeFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { subscribeFollowing, type Bus, type SubscribeOptions } from '@spoor/bus';
import type { ServiceName } from '@spoor/config';
import { createLogger } from '@spoor/service-log';
import { funnelStepMatcher } from '@spoor/rules';
import type { FunnelSpec } from '@spoor/store';
import { assembleAdapters, openAdapters, openKvOf, openStoreOf, type Adapters } from './adapters.js';
import { LocalHandoff } from './local-handoff.js';
import { FiguresTimer } from './figures-timer.js';
import { ownAdapters, type PipelineThreadData, type ServiceFigures } from './pipeline-thread.js';
import { ProcessMetrics } from './process-metrics.js';
import { stopTogether, type RunningService, type ServiceModule } from './service-module.js';
import { RpcEndpoint } from './thread-rpc.js';

const { config, modules: sources } = workerData as PipelineThreadData;
// The thread's name in `top -H`, `ps -L` and /proc/<pid>/task/*/comm, so its CPU can be told from
// the HTTP thread's (issue 41, bench:cost). Linux only; a thread may name itself through this file.
try {
  writeFileSync('/proc/thread-self/comm', 'spoor-pipeline');
} catch {
  // not Linux, or /proc not mounted: the thread keeps the process' name
}
const ep = new RpcEndpoint(parentPort!);
const logger = createLogger('spoor', config.logLevel);
process.on('unhandledRejection', (reason) => {
  logger.error('unhandled rejection', { err: reason instanceof Error ? reason : new Error(String(reason)) });
});

/**
 * The HTTP thread's log: publishes cross over; a subscription reads the log's files on this
 * thread (subscribeFollowing) and commits its offsets there.
 */
const bus: Bus = {
  kind: 'embedded',
  publish: (topic, messages, opts) => ep.call('bus', ['publish'], [topic, messages, opts]),
  lag: (topic, group) => ep.call('bus', ['lag'], [topic, group]),
  async subscribe(opts: SubscribeOptions) {
    const { topic, group } = opts;
    const at = await ep.call<{ dir: string; end: SharedArrayBuffer; start: number }>('bus', ['follow'], [topic, group]);
    const sub = subscribeFollowing(
      opts,
      at,
      (next) => ep.call('bus', ['commit'], [topic, group, next]),
      logger.child('bus'),
    );
    return {
      stop: async () => {
        await sub.stop();
        await ep.call('bus', ['unfollow'], [topic, group]);
      },
    };
  },
  close: async () => {},
};

/** `bus` with `after` called once each handled batch settles (the figures timer's nudge). */
function announcingBatches(bus: Bus, after: () => void): Bus {
  return {
    kind: bus.kind,
    publish: (topic, messages, opts) => bus.publish(topic, messages, opts),
    subscribe: (opts) =>
      bus.subscribe({
        ...opts,
        handler: async (batch, ctx) => {
          try {
            await opts.handler(batch, ctx);
          } finally {
            after();
          }
        },
      }),
    lag: (topic, group) => bus.lag(topic, group),
    close: () => bus.close(),
  };
}

async function boot(): Promise<void> {
  const metrics = new ProcessMetrics();
  const running: Array<{ name: ServiceName; service: RunningService }> = [];
  const figuresTimer = new FiguresTimer(() => pushFigures());
  let adapters: Adapters;
  if (ownAdapters(config)) {
    // Kafka, ClickHouse and Redis: this thread's own clients, as a process of consumers would have.
    const opened = await openAdapters(config, logger);
    adapters = { ...opened, bus: metrics.bus(opened.bus), store: metrics.store(opened.store) };
  } else {
    const store = await openStoreOf(config);
    const kv = await openKvOf(config);
    ep.expose('store', store);
    ep.expose('kv', kv);
    ep.expose('funnels', {
      query: (projectId: string, spec: FunnelSpec) =>
        store.funnels.query(projectId, {
          ...spec,
          steps: spec.steps.map((step) => ({ ...step, matches: funnelStepMatcher(step.logic) })),
        }),
    });
    const parts = assembleAdapters(config, bus, store, kv, logger);
    adapters = {
      ...parts,
      bus: metrics.bus(bus),
      store: metrics.store(parts.store),
      close: async () => {
        await kv.close();
        await store.close();
      },
    };
  }
  adapters = { ...adapters, bus: announcingBatches(adapters.bus, () => figuresTimer.nudge()) };
  // The gateway on the HTTP thread caches projects and accounts: it hears of this thread's
  // writes (a deletion job's) before the job's own record says it ended, messages being ordered.
  adapters.changes.on((change) => ep.note('store-changes', change));
  const modules = await Promise.all(
    sources.map(async ({ name, source }) => {
      const exported = Object.values(await import(source)) as unknown[];
      const m = exported.find(
        (v): v is ServiceModule =>
          typeof v === 'object' &&
          v !== null &&
          (v as ServiceModule).name === name &&
          typeof (v as ServiceModule).start === 'function',
      );
      if (!m) throw new Error(`${source} exports no service module named ${name}`);
      return m;
    }),
  );
  const here = new Set<ServiceName>(modules.map((m) => m.name));
  const handoff = new LocalHandoff();
  let pushed = '';
  /** Sends the services' figures to the HTTP thread if they changed; says whether they did. */
  const pushFigures = (): boolean => {
    const figures: ServiceFigures = {};
    for (const { name, service } of running)
      figures[name] = { stats: service.stats?.(), drops: service.drops?.() as Record<string, number> | undefined };
    // Only what changed crosses: an idle process no longer wakes its HTTP thread ten times a
    // second for the same counters (issue 41, idle CPU).
    const text = JSON.stringify(figures);
    if (text === pushed) return false;
    pushed = text;
    ep.note('figures', figures);
    return true;
  };
  let stopped: Promise<void> | null = null;
  ep.expose('pipeline', {
    async start(publicUrl: string | null) {
      for (const m of modules) {
        const service = await m.start({
          config,
          logger: logger.child(m.name),
          adapters,
          clock: Date.now,
          publicUrl,
          handoff,
          metrics,
          handsOffTo: (consumer) => config.handoff === 'local' && here.has(consumer),
          // Only services that serve routes watch lag, and those stay on the HTTP thread.
          watchLag: () => {
            throw new Error(`${m.name}: lag is watched on the HTTP thread, not the pipeline thread`);
          },
        });
        running.push({ name: m.name, service });
      }
      figuresTimer.start();
      return running.map(({ name, service }) => ({ name, consumes: service.consumes }));
    },
    metrics: () => metrics.registry.getMetricsAsJSON(),
    stop: () =>
      (stopped ??= (async () => {
        figuresTimer.stop();
        await stopTogether(
          running.map(({ name, service }) => ({ name, stop: () => service.stop() })),
          logger,
        );
        pushFigures();
        await adapters.close();
      })()),
  });
}

boot().then(
  () => ep.note('ready', null),
  (err: unknown) => {
    const e = err instanceof Error ? err : new Error(String(err));
    ep.note('failed', { message: e.message, stack: e.stack });
  },
);
