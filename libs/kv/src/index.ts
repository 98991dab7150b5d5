export type { Kv, KvEntry } from './kv.js';
export { MemoryKv } from './memory-kv.js';
export { RedisKv } from './redis-kv.js';
export type { RateCounter, RateCounterOptions } from './rate-counter.js';
export type { RedisTls } from './redis-connect-error.js';
