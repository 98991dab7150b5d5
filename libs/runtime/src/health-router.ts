import { Router } from 'express';
import type { Adapters } from './adapters.js';
import type { RunningService } from './service-module.js';

/**
 * Unauthenticated liveness for load balancers and tests: `GET /healthz` answers whether this
 * process serves, how long it has, its counters, and the lag of every consumer group it runs
 * (messages published but not yet processed). The full health API arrives with the worker.
 */
export function healthRouter(adapters: Adapters, services: RunningService[], clock: () => number): Router {
  const startedAt = clock();
  const router = Router();
  router.get('/healthz', async (_req, res) => {
    const lag: Record<string, number> = {};
    for (const { topic, group } of services.flatMap((s) => s.consumes ?? [])) {
      lag[`${topic}/${group}`] = await adapters.bus.lag(topic, group);
    }
    const counters = Object.assign({}, ...services.map((s) => s.stats?.() ?? {})) as Record<string, number>;
    res.json({ status: 'ok', uptime_ms: clock() - startedAt, bus: adapters.bus.kind, store: adapters.store.kind, kv: adapters.kv.kind, lag, counters });
  });
  return router;
}
