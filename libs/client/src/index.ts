export { createSpoorClient, type SpoorClient, type SpoorClientOptions } from './spoor-client.js';
export type { paths, components, operations } from './api-types.js';
export { readEventStream, type ServerSentEvent, type StreamFields } from './event-stream-reader.js';
export { followLive, LiveStreamError, type LiveFollowOptions, type LiveSnapshot } from './live-follower.js';
