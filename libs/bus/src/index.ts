export * from './bus.js';
export { GroupCommit, PublishTimeoutError } from './group-commit.js';
export { backoffDelay, sleep } from './retry-backoff.js';
export { EmbeddedBus, subscribeFollowing, type EmbeddedBusOptions } from './embedded/embedded-bus.js';
export type { FsyncMode } from './embedded/topic-log.js';
export { KafkaBus, type KafkaBusOptions } from './kafka/kafka-bus.js';
export { openBus, type BusOptions } from './open-bus.js';
export { DEFAULT_BUS_RETENTION_MS, rawCopyLifetimeMs, rollMsOf } from './bus-retention.js';
export { continueTrace, TRACEPARENT, traceIdOf, traceIdsOf } from './trace-context.js';
