import { Router } from 'express';
import {
  AggregatorRegistry,
  Counter,
  Gauge,
  type MetricObjectWithValues,
  type MetricValue,
  type Registry,
} from 'prom-client';
import type { Adapters } from './adapters.js';
import type { GroupLag, LagSampler } from './lag-sampler.js';
import { nodeProcessRegistry } from './process-metrics.js';
import type { RunningService } from './service-module.js';

/** Prometheus names: letters, digits and underscores. */
const metricName = (s: string) => s.replace(/[^a-zA-Z0-9_]/g, '_');

/**
 * Unauthenticated Prometheus exposition at `/metrics` (DESIGN.md, Health): the Node process' own
 * figures (prom-client defaults, collected once per Node process), every service counter and the
 * lag of each consumer group this process runs, beside ProcessMetrics' histograms in the same
 * registry (one per running Spoor: tests start several in one Node process).
 *
 * The lag is exported twice, from the background reading /healthz also answers from (LagSampler): `spoor_consumer_lag{topic,group}`, and
 * `kafka_consumergroup_lag{topic,consumergroup}` — the name and labels of kafka_exporter, which
 * the KEDA Prometheus-scaler and prometheus-adapter examples query (issue 19; deploy/k8s). Each
 * copy of a consumer reports its whole group's lag, so aggregate with `max`, never `sum`.
 */
export function metricsRouter(
  adapters: Adapters,
  services: () => Array<{ name: string; running: RunningService }>,
  registry: Registry,
  lagSampler: LagSampler,
  /** The pipeline thread's registry (pipeline-thread.ts), summed with this one's by name and labels. */
  more?: () => Promise<Array<MetricObjectWithValues<MetricValue<string>>>>,
): Router {
  let lags: GroupLag[] = [];
  new Gauge({
    name: 'spoor_service_counter',
    help: 'Counters of each service in this process since it started (events accepted, enriched, jobs failed, …)',
    labelNames: ['service', 'counter'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { name, running } of services()) {
        for (const [counter, value] of Object.entries(running.stats?.() ?? {}))
          this.set({ service: name, counter: metricName(counter) }, value);
      }
    },
  });
  new Counter({
    name: 'spoor_events_dropped_total',
    help: 'Events each service let go since this process started, by reason (@spoor/schemas DROP_REASONS)',
    labelNames: ['service', 'reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { name, running } of services()) {
        for (const [reason, n] of Object.entries(running.drops?.() ?? {})) this.inc({ service: name, reason }, n ?? 0);
      }
    },
  });
  new Gauge({
    name: 'spoor_consumer_lag',
    help: 'Messages published but not yet processed, per topic and consumer group this process runs',
    labelNames: ['topic', 'group'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { topic, group, lag } of lags) this.set({ topic, group }, lag);
    },
  });
  new Gauge({
    name: 'kafka_consumergroup_lag',
    help: "The same lag under kafka_exporter's name and labels (summed over partitions), for KEDA and prometheus-adapter examples",
    labelNames: ['topic', 'consumergroup'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { topic, group, lag } of lags) this.set({ topic, consumergroup: group }, lag);
    },
  });
  let storeUp = 1;
  new Gauge({
    name: 'spoor_store_up',
    help: 'Whether the store (ClickHouse or DuckDB) answered a query at this scrape: 1 yes, 0 no (issue 16: consumers pause and retry while it is 0)',
    registers: [registry],
    collect() {
      this.set(storeUp);
    },
  });
  let storeMemory: Record<string, number> = {};
  new Gauge({
    name: 'spoor_store_memory_bytes',
    help: "Memory the embedded store's engine holds, by DuckDB's tag (ART_INDEX: primary keys, which stay in memory; the events' covers the latest SPOOR_DUCKDB_KEY_WINDOW events only; the limit is SPOOR_DUCKDB_MEMORY). Absent on ClickHouse",
    labelNames: ['tag'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [tag, bytes] of Object.entries(storeMemory)) this.set({ tag }, bytes);
    },
  });
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    lags = lagSampler.current().groups;
    storeUp = (await answersWithin(adapters.store.sizeBytes(), 2_000)) ? 1 : 0;
    storeMemory = storeUp ? ((await within(adapters.store.memoryBytes(), 2_000)) ?? {}) : {};
    // The Node process' defaults live in a registry of their own (process-metrics.ts, nodeProcessRegistry).
    const own = more ? AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), await more()]) : registry;
    const texts = await Promise.all([nodeProcessRegistry(), own].map((r) => r.metrics()));
    res.set('Content-Type', registry.contentType).send(texts.filter((t) => t !== '').join('\n'));
  });
  return router;
}

/** Whether `query` resolved within `ms` (a store that hangs counts as down for this scrape). */
async function answersWithin(query: Promise<unknown>, ms: number): Promise<boolean> {
  return (
    (await within(
      query.then(() => true),
      ms,
    )) ?? false
  );
}

/** What `query` resolved to within `ms`; undefined when it failed or took longer. */
function within<T>(query: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    timer.unref();
  });
  return Promise.race([query.catch(() => undefined), late]).finally(() => clearTimeout(timer));
}
