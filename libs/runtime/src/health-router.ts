import { Router } from 'express';
import type { Adapters } from './adapters.js';
import type { LagSampler } from './lag-sampler.js';
import type { RunningService } from './service-module.js';

/**
 * Unauthenticated probes for load balancers, orchestrators and tests (docs/health.md):
 *
 * - `GET /livez`: 200 while the process answers at all. It touches no engine, so a Kafka or
 *   ClickHouse outage does not get every copy restarted (Kubernetes' liveness probe).
 * - `GET /healthz`: readiness. 503 `starting` until every service of the process has started —
 *   its routes mounted, its consumers joined their groups (`Bus.subscribe` resolves after the
 *   first join) —, then 200 `ok`; with uptime, adapters, counters and the lag of every consumer
 *   group it runs (messages published but not yet processed), as last read in the background
 *   (`lag_sampled_at`, every SPOOR_LAG_SAMPLE_MS): the probe itself touches no engine.
 */
export function healthRouter(
  adapters: Adapters,
  services: () => RunningService[],
  clock: () => number,
  ready: () => boolean,
  lagSampler: LagSampler,
): Router {
  const startedAt = clock();
  const router = Router();
  router.get('/livez', (_req, res) => {
    res.json({ status: 'alive', uptime_ms: clock() - startedAt });
  });
  router.get('/healthz', (_req, res) => {
    const { lag, sampledAt } = lagSampler.current();
    const counters = Object.assign({}, ...services().map((s) => s.stats?.() ?? {})) as Record<string, number>;
    const isReady = ready();
    if (!isReady) res.set('Retry-After', '1');
    res.status(isReady ? 200 : 503).json({
      status: isReady ? 'ok' : 'starting',
      uptime_ms: clock() - startedAt,
      bus: adapters.bus.kind,
      store: adapters.store.kind,
      kv: adapters.kv.kind,
      lag,
      lag_sampled_at: sampledAt,
      counters,
    });
  });
  return router;
}
