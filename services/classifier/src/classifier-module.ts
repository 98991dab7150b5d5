import { JobRunner } from '@spoor/jobs';
import type { ServiceModule } from '@spoor/runtime';
import type { SessionSummary } from '@spoor/schemas';
import { classificationJob, ClassifierService } from './classifier-service.js';
import { SessionClassifier } from '@spoor/rule-service';

/** Classifies sessions as they change, and runs classification jobs (DESIGN.md, classifier). */
export const classifierModule: ServiceModule = {
  name: 'classifier',
  source: import.meta.url,
  async start({ config, adapters, clock, logger, handoff, metrics }) {
    const { store, kv, bus, topics } = adapters;
    const classifier = new SessionClassifier({ store, kv, clock, matches: { bus, topic: topics.ruleMatches } });
    const service = new ClassifierService(classifier);
    const consumes = { topic: topics.sessionUpdates, group: `${config.topicPrefix}classifier` };
    // The sessionizer of this process hands its summaries over directly (SPOOR_HANDOFF=local).
    handoff.provide<SessionSummary>(consumes.topic, (summaries) => service.classifyLatest(summaries));
    const sub = await bus.subscribe({
      ...consumes,
      // What sessionizers elsewhere publish, gathered as they gather theirs (issue 41).
      maxBatch: config.pipelineBatch,
      lingerMs: config.pipelineLingerMs,
      handler: (batch) => service.handle(batch),
    });
    const jobs = new JobRunner({
      jobs: store.jobs,
      kv,
      bus,
      topic: topics.jobs,
      group: `${config.topicPrefix}classifier-jobs`,
      handlers: { classification: classificationJob(store, classifier) },
      logger: logger.child('jobs'),
      clock,
      leaseMs: config.jobLeaseMs,
      onFinished: (job) =>
        metrics.jobFinished(job.kind, job.status, (job.finished_at ?? 0) - (job.started_at ?? job.finished_at ?? 0)),
    });
    await jobs.start();
    return {
      consumes: [consumes, ...jobs.consumes()],
      stats: () => ({ ...service.stats(), ...prefixed('jobs', jobs.stats()) }),
      stop: async () => {
        await jobs.stop();
        await sub.stop();
      },
    };
  },
};

function prefixed(prefix: string, stats: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(stats).map(([k, v]) => [`${prefix}_${k}`, v]));
}
