import { Router } from 'express';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Adapters } from './adapters.js';
import type { RunningService } from './service-module.js';

/** Prometheus names: letters, digits and underscores. */
const metricName = (s: string) => s.replace(/[^a-zA-Z0-9_]/g, '_');

/**
 * The Node process' own figures (prom-client defaults: CPU, memory, event loop, GC), collected
 * once per Node process. Each `collectDefaultMetrics` call starts a GC PerformanceObserver and an
 * event-loop monitor that are never stopped and hold their registry: with one per `runServices`,
 * every Spoor a test process started and stopped stayed reachable through its gauges' closures —
 * services, GeoIP buffers, DuckDB — and the test suite's mocha process grew to 7 GB (issue 20).
 */
let processRegistry: Registry | null = null;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * Unauthenticated Prometheus exposition at `/metrics` (DESIGN.md, Health): the process' own
 * figures (prom-client defaults), every service counter and the lag of each consumer group this
 * process runs. A registry per running Spoor (tests start several in one Node process), beside
 * the one of the Node process.
 */
export function metricsRouter(adapters: Adapters, services: () => Array<{ name: string; running: RunningService }>): Router {
  const registry = new Registry();
  const both = [processMetrics(), registry];
  new Gauge({
    name: 'spoor_service_counter',
    help: 'Counters of each service in this process since it started (events accepted, enriched, jobs failed, …)',
    labelNames: ['service', 'counter'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { name, running } of services()) {
        for (const [counter, value] of Object.entries(running.stats?.() ?? {})) this.set({ service: name, counter: metricName(counter) }, value);
      }
    },
  });
  new Gauge({
    name: 'spoor_consumer_lag',
    help: 'Messages published but not yet processed, per topic and consumer group this process runs',
    labelNames: ['topic', 'group'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const { running } of services()) {
        for (const c of running.consumes ?? []) this.set({ topic: c.topic, group: c.group }, await adapters.bus.lag(c.topic, c.group));
      }
    },
  });
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    const texts = await Promise.all(both.map((r) => r.metrics()));
    res.set('Content-Type', registry.contentType).send(texts.filter((t) => t !== '').join('\n'));
  });
  return router;
}
