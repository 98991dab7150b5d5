import { RateLimits } from '@spoor/limits';
import type { ServiceModule } from '@spoor/runtime';
import { ingestFastRoutes, ingestRouter } from './ingest-routes.js';
import { IngestService } from './ingest-service.js';
import { ProjectResolver } from './project-resolver.js';

export const ingestModule: ServiceModule = {
  name: 'ingest',
  serves: true,
  async start({ config, logger, adapters, clock }) {
    const limits = new RateLimits(adapters.kv, config.rateLimits, ['ingest_project', 'ingest_ip']);
    const service = new IngestService({
      limits,
      bus: adapters.bus,
      topic: adapters.topics.rawEvents,
      projects: new ProjectResolver(adapters.store.projects, clock),
      clock,
      logger,
      publishTimeoutMs: config.ingestPublishTimeoutMs,
      unsafeAckBeforeWrite: config.unsafeAckBeforeWrite,
    });
    return { router: ingestRouter(service), fastRoutes: ingestFastRoutes(service), stats: () => ({ ...service.stats(), ...limits.stats() }), drops: () => service.drops(), stop: async () => {} };
  },
};
