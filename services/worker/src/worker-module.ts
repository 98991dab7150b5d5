import { hostname } from 'node:os';
import { SessionClassifier } from '@spoor/rule-service';
import { JobDispatcher, JobRunner } from '@spoor/jobs';
import { EmailSender, renderAlert } from '@spoor/notify';
import type { ServiceModule } from '@spoor/runtime';
import { backfillJob } from './backfill-job.js';
import { ChannelSender } from './channel-sender.js';
import { erasureJob } from './erasure-job.js';
import { exportJob, purgeExpiredExports } from './export-job.js';
import { accountDeletionJob } from './account-deletion-job.js';
import { projectDeletionJob } from './project-deletion-job.js';
import { takeHealthSnapshot } from './health-snapshots.js';
import { notificationJob } from './notification-job.js';
import { everyInterval } from './periodic-task.js';
import { aggregationJob, transitionsJob } from './result-jobs.js';
import { purgeExpiredRecords } from './record-retention.js';
import { expireProjectData } from './data-retention.js';
import { startRuleMatchConsumer } from './rule-match-consumer.js';
import { runDueSchedules } from './schedule-runner.js';
import { watchThresholds } from './threshold-watcher.js';
import { WebhookOutbox } from './webhook-outbox.js';

/**
 * Runs job commands and everything that leaves the system (DESIGN.md, worker): backfill,
 * aggregation, transitions and notification jobs; rule.matched webhooks and alerts from the
 * classifier's announcements; and, every tick, due schedules, threshold alerts and webhook retries.
 */
export const workerModule: ServiceModule = {
  name: 'worker',
  source: import.meta.url,
  async start({ config, adapters, clock, logger, metrics }) {
    const { store, kv, bus, topics } = adapters;
    const instance = `${hostname()}:${process.pid}:${clock()}`;
    const classifier = new SessionClassifier({ store, kv, clock });
    const email = config.smtpUrl ? new EmailSender({ smtpUrl: config.smtpUrl, from: config.smtpFrom }) : null;
    const sender = new ChannelSender({
      store,
      logger: logger.child('channels'),
      email,
      allowPrivate: config.webhookAllowPrivate,
    });
    const outbox = new WebhookOutbox({
      store,
      kv,
      clock,
      instance,
      logger: logger.child('webhooks'),
      allowPrivate: config.webhookAllowPrivate,
      retryBaseMs: config.webhookRetryBaseMs,
      onDisabled: async (project, hook) => {
        await sender.send(
          project,
          null,
          renderAlert({
            title: `Webhook disabled: ${hook.url}`,
            lines: [hook.disabled_reason ?? 'It kept failing'],
            origin: project.origin,
            project: project.project,
            at: clock(),
          }),
        );
      },
    });
    const dispatcher = new JobDispatcher({ jobs: store.jobs, bus, topic: topics.jobs, clock });
    const resultDeps = { store, clock, outbox };
    const runner = new JobRunner({
      jobs: store.jobs,
      kv,
      bus,
      topic: topics.jobs,
      group: `${config.topicPrefix}worker`,
      handlers: {
        backfill: backfillJob({ store, kv, classifier, clock }),
        aggregation: aggregationJob(resultDeps),
        transitions: transitionsJob(resultDeps),
        notification: notificationJob({ ...resultDeps, sender, dashboardUrl: config.publicUrl }),
        export: exportJob({ store, clock }),
        project_deletion: projectDeletionJob({ store, kv, clock, busRetentionMs: config.busRetentionMs }),
        account_deletion: accountDeletionJob({ store, kv, clock, busRetentionMs: config.busRetentionMs }),
        erasure: erasureJob({
          store,
          kv,
          clock,
          busRetentionMs: config.busRetentionMs,
          ip: { mode: config.ipMode, ipSalt: config.ipSalt, dataDir: config.dataDir },
        }),
      },
      logger: logger.child('jobs'),
      clock,
      leaseMs: config.jobLeaseMs,
      onFinished: (job) =>
        metrics.jobFinished(job.kind, job.status, (job.finished_at ?? 0) - (job.started_at ?? job.finished_at ?? 0)),
    });
    await runner.start();
    const matchGroup = `${config.topicPrefix}worker-matches`;
    const matches = await startRuleMatchConsumer({
      bus,
      topic: topics.ruleMatches,
      group: matchGroup,
      store,
      clock,
      outbox,
      sender,
      logger: logger.child('matches'),
    });
    const tick = everyInterval('worker tick', config.workerTickMs, logger, async () => {
      await runDueSchedules({ store, kv, clock, dispatcher, instance });
      await watchThresholds({ store, kv, clock, sender, outbox, instance, everyMs: config.workerTickMs });
      await outbox.kick();
      if (await purgeExpiredRecords({ store, kv, clock, instance })) await purgeExpiredExports(store, clock());
      await expireProjectData({
        store,
        kv,
        clock,
        instance,
        logger: logger.child('retention'),
        busRetentionMs: config.busRetentionMs,
      });
    });
    const snapshots = everyInterval('health snapshot', config.healthSnapshotMs, logger, async () => {
      await takeHealthSnapshot({ store, kv, bus, clock, instance, everyMs: config.healthSnapshotMs });
    });
    return {
      consumes: [...runner.consumes(), { topic: topics.ruleMatches, group: matchGroup }],
      stats: () => runner.stats(),
      stop: async () => {
        await tick.stop();
        await snapshots.stop();
        await matches.stop();
        await runner.stop();
        await outbox.kick();
        email?.close();
      },
    };
  },
};
