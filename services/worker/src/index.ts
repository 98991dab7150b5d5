export { workerModule } from './worker-module.js';
export { backfillJob, type BackfillDeps } from './backfill-job.js';
export { aggregationJob, transitionsJob, type ResultJobDeps } from './result-jobs.js';
export { WebhookOutbox, type OutboxDeps } from './webhook-outbox.js';
export { windowId } from './overview-builder.js';
