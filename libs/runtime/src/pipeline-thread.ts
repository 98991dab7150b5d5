// An all-in-one process on two threads (issue 14; docs/ARCHITECTURE.md, "The pipeline thread").
// Embedded: The HTTP thread keeps the front door (ingest, gateway), the embedded log and the
// rate counters; a worker thread owns DuckDB, the memory KV and the consumer services (enricher,
// sessionizer, classifier, worker). DuckDB lets one instance own its file and its objects cannot
// cross threads, so the store lives wholly on the pipeline thread and the HTTP thread reaches it
// by message; the log stays with ingest, whose 200 waits for the append, and the consumers read
// its files from the pipeline thread (LogFollower). One command, one data directory, as before.
import { Worker } from 'node:worker_threads';
import { EmbeddedBus, type Bus, type OutgoingMessage, type PublishOptions } from '@spoor/bus';
import type { Config, ServiceName } from '@spoor/config';
import { MemoryKv, type Kv } from '@spoor/kv';
import type { Logger } from '@spoor/service-log';
import { exportDirBeside, openExportFile, StoreChangeFeed, type Store, type StoreChange } from '@spoor/store';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import { duckdbPath, openAdapters, type Adapters } from './adapters.js';
import type { RunningService, ServiceModule } from './service-module.js';
import { RpcEndpoint } from './thread-rpc.js';

/** What the pipeline thread is told at start (structured clone). */
export interface PipelineThreadData {
  config: Config;
  /** URL of each module file to import, and the service it exports. */
  modules: Array<{ name: ServiceName; source: string }>;
}

/** Each service's figures, pushed by the pipeline thread when they change (FiguresTimer). */
export type ServiceFigures = Record<string, { stats?: Record<string, number>; drops?: Record<string, number> }>;

/**
 * The consumer services that can move to the pipeline thread: they serve no routes and name their
 * file, the process also serves HTTP, and its adapters are all embedded (the store then lives on
 * that thread, reached by message) or all network clients (Kafka, ClickHouse, Redis: each thread
 * opens its own).
 */
export function threadable(config: Config, modules: ServiceModule[]): ServiceModule[] {
  if (config.pipelineThread !== 'thread' || adaptersOf(config) === 'mixed') return [];
  const movable = modules.filter((m) => !m.serves && m.source !== undefined);
  // Alone (a consumer process of its own) there is no HTTP thread to spare.
  return movable.length > 0 && movable.length < modules.length ? movable : [];
}

function adaptersOf(config: Config): 'embedded' | 'network' | 'mixed' {
  const set = [config.kafkaBrokers, config.clickhouseUrl, config.redisUrl].filter((v) => v !== null).length;
  return set === 0 ? 'embedded' : set === 3 ? 'network' : 'mixed';
}

/** True when the pipeline thread opens adapters of its own (network clients) instead of owning the embedded ones. */
export function ownAdapters(config: Config): boolean {
  return adaptersOf(config) === 'network';
}

export interface PipelineThread {
  /**
   * The embedded store and KV, reached by message (export files are read from disk here; rate
   * counters stay on this thread: only the front door counts); null when each thread has its own.
   */
  shared: { store: Store; kv: Kv } | null;
  /** Starts the thread's services, in order; answers a stand-in per service for health and stop. */
  start(publicUrl: string | null): Promise<Array<{ name: ServiceName; running: RunningService }>>;
  /** Hears of every write to projects and accounts made on the pipeline thread (its Adapters.changes). */
  onStoreChanges(listener: (change: StoreChange) => void): void;
  /** The thread's own metrics (its bus batches, store calls, jobs), for /metrics. */
  metrics(): Promise<Array<MetricObjectWithValues<MetricValue<string>>>>;
  /** Stops the services, closes the store and KV, and ends the thread. Idempotent. */
  stop(): Promise<void>;
}

/**
 * This thread's adapters with the pipeline thread beside them. Embedded: the log opens here, the
 * pipeline thread opens (and migrates) the store and KV and this thread reaches them by message.
 * Network clients: each thread opens its own. Closing the adapters stops the thread first.
 */
export async function openAdaptersWithPipeline(
  config: Config,
  moved: ServiceModule[],
  logger: Logger,
): Promise<{ adapters: Adapters; pipeline: PipelineThread }> {
  const made: { thread?: PipelineThread } = {};
  const own = await openAdapters(
    config,
    logger,
    ownAdapters(config)
      ? undefined
      : async (bus) => {
          made.thread = await openPipelineThread(config, moved, bus, logger);
          return made.thread.shared!;
        },
  );
  if (!made.thread) {
    try {
      made.thread = await openPipelineThread(config, moved, null, logger);
    } catch (err) {
      await own.close();
      throw err;
    }
  }
  const pipeline = made.thread;
  pipeline.onStoreChanges((change) => own.changes.emit(change));
  logger.info('pipeline thread started', { services: moved.map((m) => m.name) });
  return {
    pipeline,
    adapters: {
      ...own,
      close: async () => {
        await pipeline.stop();
        await own.close();
      },
    },
  };
}

/**
 * Starts the pipeline thread and waits until it has opened its adapters. `bus`: this thread's
 * embedded log, through which the pipeline thread publishes and subscribes, its store and KV then
 * `shared`; null when the pipeline thread opens its own.
 */
async function openPipelineThread(
  config: Config,
  modules: ServiceModule[],
  bus: Bus | null,
  logger: Logger,
): Promise<PipelineThread> {
  const data: PipelineThreadData = { config, modules: modules.map((m) => ({ name: m.name, source: m.source! })) };
  const worker = new Worker(new URL('./pipeline-thread-main.js', import.meta.url), {
    workerData: data,
    name: 'spoor-pipeline',
  });
  const ep = new RpcEndpoint(worker);
  let stopping = false;
  if (bus) {
    if (!(bus instanceof EmbeddedBus)) throw new Error('the pipeline thread shares only an embedded bus');
    // The pipeline thread's consumers read the log's files themselves (LogFollower) and commit
    // here: no batch is read or copied on this thread (issue 14).
    ep.expose('bus', {
      publish: (topic: string, messages: OutgoingMessage[], opts: PublishOptions | undefined) =>
        bus.publish(topic, messages, opts),
      lag: (topic: string, group: string) => bus.lag(topic, group),
      follow: (topic: string, group: string) => bus.follow(topic, group),
      commit: (topic: string, group: string, next: number) => bus.commit(topic, group, next),
      unfollow: (topic: string, group: string) => bus.unfollow(topic, group),
    });
  }
  let figures: ServiceFigures = {};
  ep.onNote('figures', (f) => (figures = f as ServiceFigures));
  const changes = new StoreChangeFeed();
  ep.onNote('store-changes', (c) => changes.emit(c as StoreChange));
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  worker.on('error', (err) => logger.error('pipeline thread failed', { err }));
  const ready = new Promise<void>((resolve, reject) => {
    ep.onNote('ready', () => resolve());
    ep.onNote('failed', (e) =>
      reject(Object.assign(new Error((e as { message: string }).message), { stack: (e as { stack?: string }).stack })),
    );
    void exited.then((code) => reject(new Error(`the pipeline thread exited (${code}) while starting`)));
  });
  try {
    await ready;
  } catch (err) {
    await worker.terminate();
    throw err;
  }
  void exited.then((code) => {
    ep.close();
    if (stopping) return;
    // Its state is unknown (a throw nobody caught): end the process for a supervisor to restart,
    // as for an uncaught exception on this thread. Nothing acknowledged is lost: the log replays.
    logger.error('pipeline thread exited; exiting', { code });
    process.exit(1);
  });

  let stopped: Promise<void> | null = null;
  const stop = () =>
    (stopped ??= (async () => {
      stopping = true;
      try {
        await ep.call('pipeline', ['stop'], []);
      } catch (err) {
        logger.error('pipeline thread stopped uncleanly', { err });
      }
      await worker.terminate();
      ep.close();
    })());

  return {
    shared: bus ? sharedAdapters(ep, config) : null,
    async start(publicUrl) {
      const started = await ep.call<Array<{ name: ServiceName; consumes?: Array<{ topic: string; group: string }> }>>(
        'pipeline',
        ['start'],
        [publicUrl],
      );
      return started.map(({ name, consumes }) => ({
        name,
        running: {
          consumes,
          stats: () => figures[name]?.stats ?? {},
          drops: () => figures[name]?.drops ?? {},
          stop,
        },
      }));
    },
    onStoreChanges: (listener) => void changes.on(listener),
    metrics: () => ep.call('pipeline', ['metrics'], []),
    stop,
  };
}

/** The pipeline thread's DuckDB store and memory KV as this thread reaches them. */
function sharedAdapters(ep: RpcEndpoint, config: Config): { store: Store; kv: Kv } {
  const repo = <K extends keyof Store>(name: K) => ep.remote<Store[K]>('store', [name]);
  const exportsThere = repo('exports');
  const exportDir = exportDirBeside(duckdbPath(config));
  const store: Store = {
    kind: 'duckdb',
    migrate: async () => {},
    projects: repo('projects'),
    events: repo('events'),
    sessions: repo('sessions'),
    accounts: repo('accounts'),
    members: repo('members'),
    audit: repo('audit'),
    apiKeys: repo('apiKeys'),
    signingKeys: repo('signingKeys'),
    revokedTokens: repo('revokedTokens'),
    tags: repo('tags'),
    rules: repo('rules'),
    classifications: repo('classifications'),
    jobs: repo('jobs'),
    analytics: repo('analytics'),
    records: repo('records'),
    // A step's exact test is a function: its JSONLogic crosses, and the pipeline thread rebuilds it.
    funnels: {
      query: (projectId, spec) =>
        ep.call(
          'funnels',
          ['query'],
          [projectId, { ...spec, steps: spec.steps.map(({ matches: _, ...step }) => step) }],
        ),
    },
    retention: repo('retention'),
    live: repo('live'),
    stats: repo('stats'),
    // Downloads stream from disk here; writes and purges are the pipeline thread's.
    exports: {
      write: (spec) => exportsThere.write(spec),
      open: (id) => openExportFile(exportDir, id),
      purge: (before) => exportsThere.purge(before),
      mark: (source) => exportsThere.mark(source),
      usage: (query) => exportsThere.usage(query),
    },
    erasure: repo('erasure'),
    expiry: repo('expiry'),
    sizeBytes: () => ep.call('store', ['sizeBytes'], []),
    memoryBytes: () => ep.call('store', ['memoryBytes'], []),
    close: async () => {},
  };
  const remoteKv = ep.remote<Kv>('kv');
  const counters = new MemoryKv();
  const kv: Kv = {
    kind: 'memory',
    get: (key) => remoteKv.get(key),
    mget: (keys) => remoteKv.mget(keys),
    set: (key, value, ttlMs) => remoteKv.set(key, value, ttlMs),
    mset: (entries) => remoteKv.mset(entries),
    setIfAbsent: (key, value, ttlMs) => remoteKv.setIfAbsent(key, value, ttlMs),
    incr: (key, by, ttlMs) => remoteKv.incr(key, by, ttlMs),
    del: (key) => remoteKv.del(key),
    deletePrefixes: (prefixes) => remoteKv.deletePrefixes(prefixes),
    rateCounter: (opts) => counters.rateCounter(opts),
    close: () => counters.close(),
  };
  return { store, kv };
}
