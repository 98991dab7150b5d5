import { SessionClassifier } from '@spoor/classifier';
import { JobFailure, JobRunner, type JobHandler } from '@spoor/jobs';
import type { ServiceModule } from '@spoor/runtime';
import { backfillJob } from './backfill-job.js';

/** Kinds whose work arrives with the worker's next stage: their jobs end failed, saying so. */
const notYet = (kind: string): JobHandler => async () => {
  throw new JobFailure(`${kind} jobs are not implemented in this version yet`);
};

/** Runs job commands (DESIGN.md, worker): backfill now; aggregation, notification and transitions next. */
export const workerModule: ServiceModule = {
  name: 'worker',
  async start({ config, adapters, clock, logger }) {
    const { store, kv, bus, topics } = adapters;
    const classifier = new SessionClassifier({ store, kv, clock });
    const runner = new JobRunner({
      jobs: store.jobs,
      kv,
      bus,
      topic: topics.jobs,
      group: `${config.topicPrefix}worker`,
      handlers: {
        backfill: backfillJob({ store, kv, classifier, clock }),
        aggregation: notYet('aggregation'),
        notification: notYet('notification'),
        transitions: notYet('transitions'),
      },
      logger: logger.child('jobs'),
      clock,
      leaseMs: config.jobLeaseMs,
    });
    await runner.start();
    return { consumes: runner.consumes(), stats: () => runner.stats(), stop: () => runner.stop() };
  },
};
