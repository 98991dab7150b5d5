import type { ServiceModule } from '@spoor/runtime';
import { SessionizerService } from './sessionizer-service.js';

export const sessionizerModule: ServiceModule = {
  name: 'sessionizer',
  async start({ config, adapters, clock }) {
    const service = new SessionizerService({ store: adapters.store, kv: adapters.kv, clock, updates: { bus: adapters.bus, topic: adapters.topics.sessionUpdates } });
    const consumes = { topic: adapters.topics.enrichedEvents, group: `${config.topicPrefix}sessionizer` };
    const sub = await adapters.bus.subscribe({
      ...consumes,
      maxBatch: 2000,
      handler: (batch) => service.handle(batch),
    });
    return { consumes: [consumes], stats: () => service.stats(), stop: () => sub.stop() };
  },
};
