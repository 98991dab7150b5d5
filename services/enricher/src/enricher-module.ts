import { createEnrichmentPipeline, ipSalt, openGeoLookup } from '@spoor/enrich';
import { TRACEPARENT } from '@spoor/bus';
import type { ServiceContext, ServiceModule } from '@spoor/runtime';
import { formatRawPosition, RAW_POSITION_HEADER, type SessionInput } from '@spoor/schemas';
import { kvDedupWindow, localDedupWindow } from './dedup-window.js';
import { EnricherService, type EnrichedOutput } from './enricher-service.js';
import { IpPolicyCache } from './ip-policy-cache.js';

export const enricherModule: ServiceModule = {
  name: 'enricher',
  source: import.meta.url,
  async start(ctx) {
    const { config, logger, adapters, clock } = ctx;
    const pipeline = createEnrichmentPipeline({
      ipMode: config.ipMode,
      ipSalt: await ipSalt(config),
      geo: await openGeoLookup(config.geoipDb ?? undefined),
      clock,
    });
    // Without Redis this process is the only enricher: its own bounded memory is the window.
    const dedup = adapters.kv.kind === 'memory' ? localDedupWindow() : kvDedupWindow(adapters.kv);
    const ipPolicies = new IpPolicyCache(adapters.store.projects, config.ipMode, clock);
    const service = new EnricherService({
      store: adapters.store,
      kv: adapters.kv,
      dedup,
      pipeline,
      ipPolicies,
      output: enrichedOutput(ctx),
      logger,
    });
    const consumes = { topic: adapters.topics.rawEvents, group: `${config.topicPrefix}enricher` };
    const sub = await adapters.bus.subscribe({
      ...consumes,
      // Size or time, whichever comes first (SPOOR_PIPELINE_BATCH, SPOOR_PIPELINE_LINGER_MS; issue
      // 41): a batch's fixed costs (a transaction, an insert per table, a write per changed session,
      // an offset commit) paid a few times a second, not once per request. The event is on the
      // bus, acknowledged, either way — only its storage waits.
      maxBatch: config.pipelineBatch,
      lingerMs: config.pipelineLingerMs,
      // The next batch is enriched while this one is written (EnricherService.handle).
      inFlight: 2,
      handler: (batch) => service.handle(batch),
    });
    return { consumes: [consumes], stats: () => service.stats(), drops: () => service.drops(), stop: () => sub.stop() };
  },
};

/** The sessionizer of this process when there is one (SPOOR_HANDOFF=local), else `events.enriched`. */
function enrichedOutput({ adapters, handoff, handsOffTo }: ServiceContext): EnrichedOutput {
  const topic = adapters.topics.enrichedEvents;
  if (handsOffTo('sessionizer')) {
    const local = handoff.consumer<SessionInput>(topic);
    return async (events) => (await local)(events);
  }
  return (events) =>
    adapters.bus.publish(
      topic,
      events.map(({ event: e, source, offset, traceparent }) => ({
        key: `${e.project_id}:${e.session_id}`,
        value: JSON.stringify(e),
        headers: {
          [RAW_POSITION_HEADER]: formatRawPosition(source, offset),
          ...(traceparent ? { [TRACEPARENT]: traceparent } : {}),
        },
      })),
    );
}
