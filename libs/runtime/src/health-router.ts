import { Router } from 'express';
import type { FastAnswer } from '@spoor/http';
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
export function healthRouter(probes: Probes): Router {
  const router = Router();
  for (const [path, answer] of Object.entries(probes)) {
    router.get(path, (_req, res) => {
      const { status, headers, body } = answer();
      res
        .status(status)
        .set(headers ?? {})
        .json(body);
    });
  }
  return router;
}

/** The probes' answers by path, computed from memory: served by express and by the fast lane alike. */
export type Probes = Record<'/livez' | '/healthz', () => FastAnswer>;

export function probes(
  adapters: Adapters,
  services: () => RunningService[],
  clock: () => number,
  ready: () => boolean,
  lagSampler: LagSampler,
): Probes {
  const startedAt = clock();
  return {
    '/livez': () => ({ status: 200, body: { status: 'alive', uptime_ms: clock() - startedAt } }),
    '/healthz': () => {
      const { lag, sampledAt } = lagSampler.current();
      const counters = Object.assign({}, ...services().map((s) => s.stats?.() ?? {})) as Record<string, number>;
      const isReady = ready();
      const headers: Record<string, string> = isReady ? {} : { 'Retry-After': '1' };
      return {
        status: isReady ? 200 : 503,
        headers,
        body: {
          status: isReady ? 'ok' : 'starting',
          uptime_ms: clock() - startedAt,
          bus: adapters.bus.kind,
          store: adapters.store.kind,
          kv: adapters.kv.kind,
          lag,
          lag_sampled_at: sampledAt,
          counters,
        },
      };
    },
  };
}
