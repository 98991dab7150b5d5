import { RateLimits } from '@spoor/limits';
import type { ServiceModule } from '@spoor/runtime';
import { ingestFastRoutes, ingestRouter } from './ingest-routes.js';
import { IngestService } from './ingest-service.js';
import { ProjectResolver } from './project-resolver.js';

export const ingestModule: ServiceModule = {
  name: 'ingest',
  serves: true,
  async start({ config, logger, adapters, clock, watchLag }) {
    const limits = new RateLimits(adapters.kv, config.rateLimits, ['ingest_project', 'ingest_ip']);
    // The enricher's backlog of raw events, read in the background with the process' other lags:
    // ingest refuses more once it passes SPOOR_INGEST_MAX_LAG.
    const backlog =
      config.ingestMaxLag > 0
        ? watchLag({ topic: adapters.topics.rawEvents, group: `${config.topicPrefix}enricher` })
        : null;
    const service = new IngestService({
      behind: backlog ? () => backlog() >= config.ingestMaxLag : undefined,
      limits,
      bus: adapters.bus,
      topic: adapters.topics.rawEvents,
      projects: new ProjectResolver(adapters.store.projects, clock),
      clock,
      logger,
      publishTimeoutMs: config.ingestPublishTimeoutMs,
      unsafeAckBeforeWrite: config.unsafeAckBeforeWrite,
    });
    return {
      router: ingestRouter(service),
      fastRoutes: ingestFastRoutes(service),
      stats: () => ({ ...service.stats(), ...limits.stats() }),
      drops: () => service.drops(),
      stop: async () => {},
    };
  },
};
