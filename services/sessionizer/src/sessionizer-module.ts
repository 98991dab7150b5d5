import type { ServiceContext, ServiceModule } from '@spoor/runtime';
import type { SessionInput, SessionUpdate } from '@spoor/schemas';
import { SessionizerService, type SessionUpdatesOutput } from './sessionizer-service.js';

export const sessionizerModule: ServiceModule = {
  name: 'sessionizer',
  source: import.meta.url,
  async start(ctx) {
    const { config, adapters, clock, handoff } = ctx;
    const service = new SessionizerService({
      store: adapters.store,
      kv: adapters.kv,
      clock,
      updates: updatesOutput(ctx),
    });
    const consumes = { topic: adapters.topics.enrichedEvents, group: `${config.topicPrefix}sessionizer` };
    // The enricher of this process hands its events over directly (SPOOR_HANDOFF=local); the
    // topic is still consumed, for what enrichers elsewhere (or before an upgrade) published.
    handoff.provide<SessionInput>(consumes.topic, (inputs) => service.apply(inputs));
    const sub = await adapters.bus.subscribe({
      ...consumes,
      // What enrichers elsewhere publish, gathered as they gather theirs (issue 41).
      maxBatch: config.pipelineBatch,
      lingerMs: config.pipelineLingerMs,
      handler: (batch) => service.handle(batch),
    });
    return { consumes: [consumes], stats: () => service.stats(), drops: () => service.drops(), stop: () => sub.stop() };
  },
};

/** The classifier of this process when there is one (SPOOR_HANDOFF=local), else `sessions.updated`. */
function updatesOutput({ adapters, handoff, handsOffTo }: ServiceContext): SessionUpdatesOutput {
  const topic = adapters.topics.sessionUpdates;
  if (handsOffTo('classifier')) {
    const local = handoff.consumer<SessionUpdate>(topic);
    return async (updates) => (await local)(updates);
  }
  return (updates) =>
    adapters.bus.publish(
      topic,
      updates.map((s) => ({ key: s.session_id, value: JSON.stringify(s) })),
    );
}
