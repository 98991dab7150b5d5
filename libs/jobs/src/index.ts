export { JobDispatcher, JobDispatchError, type JobDispatcherDeps } from './job-dispatcher.js';
export { JobRunner, JobFailure, type JobContext, type JobHandler, type JobRunnerOptions } from './job-runner.js';
