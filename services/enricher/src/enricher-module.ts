import { createEnrichmentPipeline, openGeoLookup } from '@spoor/enrich';
import type { ServiceModule } from '@spoor/runtime';
import { EnricherService } from './enricher-service.js';
import { ipSalt } from './ip-salt.js';

export const enricherModule: ServiceModule = {
  name: 'enricher',
  async start({ config, logger, adapters, clock }) {
    const pipeline = createEnrichmentPipeline({
      ipMode: config.ipMode,
      ipSalt: await ipSalt(config),
      geo: await openGeoLookup(config.geoipDb ?? undefined),
      clock,
    });
    const service = new EnricherService({ bus: adapters.bus, store: adapters.store, kv: adapters.kv, pipeline, outputTopic: adapters.topics.enrichedEvents, logger });
    const consumes = { topic: adapters.topics.rawEvents, group: `${config.topicPrefix}enricher` };
    const sub = await adapters.bus.subscribe({
      ...consumes,
      maxBatch: 2000,
      handler: (batch) => service.handle(batch),
    });
    return { consumes: [consumes], stats: () => service.stats(), stop: () => sub.stop() };
  },
};
