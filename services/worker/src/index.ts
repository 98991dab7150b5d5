export { workerModule } from './worker-module.js';
export { backfillJob, type BackfillDeps } from './backfill-job.js';
