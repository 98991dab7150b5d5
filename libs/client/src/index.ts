export { createSpoorClient, type SpoorClient, type SpoorClientOptions } from './spoor-client.js';
export type { paths, components, operations } from './api-types.js';
