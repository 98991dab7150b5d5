// The public API of @spoor/enrich: the pipeline, and each step for callers that need one alone.
export {
  createEnrichmentPipeline,
  STEP_NAMES,
  type EnrichedDraft,
  type EnrichmentCounters,
  type EnrichmentPipeline,
  type EnrichmentPipelineOptions,
  type EnrichResult,
  type StepName,
} from './enrichment-pipeline.js';
export {
  checkPayloadDepth,
  checkTimestamp,
  GUARD_DROP_REASONS,
  jsonDepthExceeds,
  MAX_FUTURE_MS,
  MAX_PAYLOAD_DEPTH,
  type GuardDropReason,
} from './event-guard-step.js';
export { EMPTY_GEO, EMPTY_GEO_LOOKUP, openGeoLookup, type GeoLookup, type GeoLookupOptions } from './geo-lookup.js';
export { applyIpMode, hashIp, IP_MODES, normaliseIp, truncateIp, type IpMode } from './ip-step.js';
export { ipSalt } from './ip-salt.js';
export { LruCache } from './lru-cache.js';
export { normaliseReferrer } from './referrer-step.js';
export { deriveSessionKey } from './session-key-step.js';
export { EMPTY_UTM, MAX_QUERY_KEYS, MAX_QUERY_TEXT, parsePageUrl, type UrlFields } from './url-step.js';
export {
  createUserAgentParser,
  isBot,
  type UserAgentInfo,
  type UserAgentParser,
  type UserAgentParserOptions,
} from './user-agent-step.js';
