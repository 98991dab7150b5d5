import { Router } from 'express';
import type { Adapters } from './adapters.js';
import type { RunningService } from './service-module.js';

/**
 * Unauthenticated probes for load balancers, orchestrators and tests (docs/health.md):
 *
 * - `GET /livez`: 200 while the process answers at all. It touches no engine, so a Kafka or
 *   ClickHouse outage does not get every copy restarted (Kubernetes' liveness probe).
 * - `GET /healthz`: readiness. 503 `starting` until every service of the process has started —
 *   its routes mounted, its consumers joined their groups (`Bus.subscribe` resolves after the
 *   first join) —, then 200 `ok`; with uptime, adapters, counters and the lag of every consumer
 *   group it runs (messages published but not yet processed).
 */
export function healthRouter(adapters: Adapters, services: RunningService[], clock: () => number, ready: () => boolean): Router {
  const startedAt = clock();
  const router = Router();
  router.get('/livez', (_req, res) => {
    res.json({ status: 'alive', uptime_ms: clock() - startedAt });
  });
  router.get('/healthz', async (_req, res) => {
    const lag: Record<string, number> = {};
    for (const { topic, group } of services.flatMap((s) => s.consumes ?? [])) {
      lag[`${topic}/${group}`] = await adapters.bus.lag(topic, group);
    }
    const counters = Object.assign({}, ...services.map((s) => s.stats?.() ?? {})) as Record<string, number>;
    const isReady = ready();
    if (!isReady) res.set('Retry-After', '1');
    res.status(isReady ? 200 : 503).json({ status: isReady ? 'ok' : 'starting', uptime_ms: clock() - startedAt, bus: adapters.bus.kind, store: adapters.store.kind, kv: adapters.kv.kind, lag, counters });
  });
  return router;
}
