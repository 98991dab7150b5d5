import { Router } from 'express';
import { loadConfig, ConfigError, type Config, type ServiceName } from '@spoor/config';
import { createLogger, type Logger } from '@spoor/service-log';
import { createHttpApp, errors, FastLane, listen, type RunningServer } from '@spoor/http';
import { openAdapters, type Adapters } from './adapters.js';
import { openAdaptersWithPipeline, threadable } from './pipeline-thread.js';
import { hostname } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { buildVersion } from './build-version.js';
import { healthRouter, probes } from './health-router.js';
import { startHeartbeats } from './heartbeat.js';
import { LagSampler } from './lag-sampler.js';
import { LocalHandoff } from './local-handoff.js';
import { metricsRouter } from './metrics-router.js';
import { ProcessMetrics } from './process-metrics.js';
import { stopTogether, timed, type RunningService, type ServiceModule } from './service-module.js';

export interface RunningProcess {
  adapters: Adapters;
  http: RunningServer | null;
  services: RunningService[];
  stop(): Promise<void>;
}

/**
 * Starts the configured services in this process on shared adapters, and one HTTP server when
 * any of them serves routes. The server listens first (its routes mounted as services start),
 * so services that need their own public URL, such as the token issuer, know it.
 */
export async function runServices(
  config: Config,
  modules: ServiceModule[],
  logger: Logger,
  clock: () => number = Date.now,
): Promise<RunningProcess> {
  const selected = modules.filter((m) => config.services.includes(m.name));
  const metrics = new ProcessMetrics();
  // All-in-one: the consumers on a thread of their own (pipeline-thread.ts). A test's own clock
  // cannot cross to another thread: such a process keeps one thread.
  const moved = clock === Date.now ? threadable(config, selected) : [];
  const onMain = selected.filter((m) => !moved.includes(m));
  const { adapters: opened, pipeline } =
    moved.length > 0
      ? await openAdaptersWithPipeline(config, moved, logger)
      : { adapters: await openAdapters(config, logger), pipeline: null };
  // Every service uses the measured bus and store (their batches, publishes and calls in /metrics).
  const adapters: Adapters = { ...opened, bus: metrics.bus(opened.bus), store: metrics.store(opened.store) };
  const entries: Array<{ name: ServiceName; running: RunningService }> = [];
  const services = () => entries.map((e) => e.running);
  const root = Router();
  // A process of consumers alone listens only when asked (SPOOR_HEALTH_HTTP), for probes and metrics.
  const app =
    selected.some((m) => m.serves) || config.healthHttp
      ? createHttpApp({ logger: logger.child('http'), trustProxy: config.trustProxy, mount: (a) => a.use(root) })
      : null;
  const lane = app
    ? new FastLane(app, logger.child('http'), (method, route, status, seconds) =>
        metrics.fastRequest(method, route, status, seconds),
      )
    : null;
  const http = app ? await listen(app, config.port, config.host, lane!) : null;
  let started = false;
  const lagSampler = new LagSampler(
    adapters.bus,
    () => services().flatMap((s) => s.consumes ?? []),
    clock,
    config.lagSampleMs,
    logger,
  );
  if (http) {
    root.use(metrics.http());
    const probeAnswers = probes(adapters, services, clock, () => started, lagSampler);
    root.use(healthRouter(probeAnswers));
    for (const [path, answer] of Object.entries(probeAnswers)) lane?.addGet(path, answer);
    root.use(
      metricsRouter(
        adapters,
        () => entries,
        metrics.registry,
        lagSampler,
        pipeline ? () => pipeline.metrics() : undefined,
      ),
    );
    // Until every service has mounted its routes, answer 503 (retry) rather than a misleading 404.
    root.use((_req, _res, next) => next(started ? undefined : errors.unavailable('Starting; retry shortly', 1)));
  }
  try {
    const publicUrl = config.publicUrl ?? http?.url ?? null;
    const handoff = new LocalHandoff();
    const here = new Set(onMain.map((m) => m.name));
    const handsOffTo = (consumer: ServiceName) => config.handoff === 'local' && here.has(consumer);
    for (const m of onMain) {
      const service = await m.start({
        config,
        logger: logger.child(m.name),
        adapters,
        clock,
        publicUrl,
        handoff,
        handsOffTo,
        metrics,
        watchLag: (t) => lagSampler.watch(t),
      });
      entries.push({ name: m.name, running: service });
      if (service.router) root.use(service.router);
    }
    entries.push(...((await pipeline?.start(publicUrl)) ?? []));
    // Fast routes open with the rest: until then express answers 503 for them too.
    for (const r of services().flatMap((s) => s.fastRoutes ?? [])) lane?.add(r.path, r.handler, r.limitBytes);
    for (const r of services().flatMap((s) => s.fastStreams ?? [])) lane?.addStream(r.path, r.handler);
    // Ready with a first lag reading in hand, never with an empty one.
    await lagSampler.refresh();
  } catch (err) {
    // A service that could not start (an engine refusing, a topic not created) must not leave the
    // others running, the port bound and the engines' clients open: the caller gets the error and
    // nothing behind it (a test's failed start held its mocha process alive, issue 20).
    await stopTogether(
      entries.map(({ name, running }) => ({ name, stop: () => running.stop() })),
      logger,
    ).catch(() => undefined);
    await http?.close(0).catch(() => undefined);
    await adapters.close().catch(() => undefined);
    throw err;
  }
  lagSampler.start();
  started = true;
  const heartbeats = startHeartbeats({
    store: adapters.store,
    clock,
    logger,
    everyMs: config.heartbeatMs,
    instance: `${hostname()}:${process.pid}:${clock()}`,
    version: buildVersion(),
    sources: () =>
      entries.map(({ name, running }) => ({
        name,
        stats: running.stats,
        drops: running.drops,
        consumes: running.consumes,
      })),
  });
  await heartbeats.beat();
  logger.info('spoor started', { services: selected.map((m) => m.name), url: http?.url ?? null });
  let stopping: Promise<void> | null = null;
  return {
    adapters,
    http,
    services: services(),
    stop: () =>
      (stopping ??= (async () => {
        // Graceful (issue 16): no new connections, requests under way finish, then the consumers
        // finish their batches and commit, then the bus and the store are flushed and closed.
        await timed(logger, 'http', async () => http?.close(config.shutdownGraceMs));
        await lagSampler.stop();
        await heartbeats.stop();
        await stopTogether(
          entries.map(({ name, running }) => ({ name, stop: () => running.stop() })),
          logger,
        );
        await timed(logger, 'adapters', () => adapters.close());
      })()),
  };
}

/** How long the consumers, the bus and the store get to stop after the requests' grace. */
const STOP_BOUND_MS = 20_000;

/** A process entry point: reads the environment, starts, and stops cleanly on SIGINT/SIGTERM. */
export async function main(modules: ServiceModule[], only?: ServiceName[]): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`spoor: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  if (only) config = { ...config, services: only };
  // V8 reads its growing factor at every full collection, on every thread's heap (issue 14, target 5).
  if (config.heapGrowingPercent > 0) setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
  const logger = createLogger('spoor', config.logLevel);
  guardProcess(logger);
  // Everything this process creates (DuckDB's files and WAL, the bus log, exports) is its owner's
  // alone: 0600 files, 0700 folders (issue 13; secureDataDir fixes what exists).
  process.umask(0o077);
  let running: RunningProcess;
  try {
    running = await runServices(config, modules, logger);
  } catch (err) {
    // An engine refusing this process (issue 46: Kafka's SASL or TLS, names the setting) or not
    // answering: said once, and the process ends for its supervisor to see, never retried here.
    logger.error('could not start', { err });
    process.exit(1);
  }
  const shutdown = (signal: string) => {
    logger.info('stopping', { signal });
    // Bounded: a stop that hangs (a broker away, a batch that never ends) still ends the process.
    setTimeout(() => {
      logger.error('stop took too long; exiting', { signal, bound_ms: config.shutdownGraceMs + STOP_BOUND_MS });
      process.exit(1);
    }, config.shutdownGraceMs + STOP_BOUND_MS).unref();
    running.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error('unclean stop', { err });
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

/**
 * A promise rejected with nobody listening used to end the process (Node's default), and in
 * embedded mode that is every service (issue 13): log it and go on serving. Every request path
 * catches its own errors; this is the net for a fault outside them. An uncaught exception still
 * ends the process, logged: state after a synchronous throw is unknown, and a supervisor restarts.
 */
export function guardProcess(logger: Logger): void {
  process.on('unhandledRejection', (reason) => {
    logger.error('unhandled rejection', { err: reason instanceof Error ? reason : new Error(String(reason)) });
  });
  process.on('uncaughtException', (err) => {
    logger.error('uncaught exception; exiting', { err });
    process.exit(1);
  });
}
