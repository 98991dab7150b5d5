import type { EnrichedEvent, RawEvent } from '@spoor/schemas';
import { checkPayloadDepth, checkTimestamp, GUARD_DROP_REASONS, type GuardDropReason } from './event-guard-step.js';
import { EMPTY_GEO, type GeoLookup } from './geo-lookup.js';
import { applyIpMode, IP_MODES, type IpMode } from './ip-step.js';
import { normaliseReferrer } from './referrer-step.js';
import { deriveSessionKey } from './session-key-step.js';
import { EMPTY_UTM, parsePageUrl } from './url-step.js';
import { memoize } from './lru-cache.js';
import { createUserAgentParser } from './user-agent-step.js';

export interface EnrichmentPipelineOptions {
  ipMode: IpMode;
  /** Keys the `hash` IP mode and the session key. */
  ipSalt: string;
  geo: GeoLookup;
  /** Stands in for `received_at` when a producer left it out. Defaults to Date.now. */
  clock?: () => number;
  /** Distinct user agents kept parsed (default 10,000). */
  userAgentCacheSize?: number;
  /**
   * Distinct inputs each of the pure string steps remembers (default 10,000): page URLs,
   * referrers, session keys and stored IPs. A visitor's second event then costs map lookups
   * instead of two URL parses and two HMACs (issue 14: 15.8 → 2.3 µs an event; docs/performance.md).
   */
  stepCacheSize?: number;
}

/** The enriched event before the sessionizer fills `session_id` (null unless the logger sent one). */
export type EnrichedDraft = Omit<EnrichedEvent, 'session_id'> & { session_id: string | null };

export type EnrichResult =
  { ok: true; event: EnrichedDraft; sessionKey: string } | { ok: false; reason: GuardDropReason };

export type EnrichmentCounters = Record<GuardDropReason | 'enriched', number>;

export interface EnrichmentPipeline {
  /**
   * Pure apart from the caches and counters: never throws for any RawEvent. `ipMode` is the
   * project's own IP policy (issue 17); left out, the pipeline's `ipMode` (SPOOR_IP_MODE).
   */
  enrich(raw: RawEvent, ipMode?: IpMode): EnrichResult;
  /** A snapshot of how many events each outcome has had since creation. */
  counters(): EnrichmentCounters;
}

/**
 * The fixed order of the steps. Guards come first so a dropped event costs no lookups;
 * geolocation and the session key read the ORIGINAL address, so `put_ip` (which truncates
 * or hashes it per SPOOR_IP_MODE) runs last; `put_referrer` needs the page URL `put_url`
 * resolved.
 */
export const STEP_NAMES = [
  'check_timestamp',
  'check_payload_depth',
  'put_geolocation',
  'put_session_key',
  'put_user_agent',
  'put_url',
  'put_referrer',
  'put_ip',
] as const;
export type StepName = (typeof STEP_NAMES)[number];

/**
 * What a step answers: the fields it sets, the session key, a drop, or nothing. The session key
 * is kept beside the event rather than in it, so the event needs no copy to lose it at the end.
 */
type StepOutput = Partial<EnrichedDraft> | { sessionKey: string } | { drop: GuardDropReason } | null;
type Step = (draft: Readonly<EnrichedDraft>, ipMode: IpMode) => StepOutput;

const NO_NAME_VERSION = Object.freeze({ name: null, version: null });
const NO_DEVICE = Object.freeze({ type: null, vendor: null, model: null });
const NO_QUERY: Record<string, string> = Object.freeze({});

const asDrop = (reason: GuardDropReason | null): StepOutput => (reason === null ? null : { drop: reason });

function buildSteps(options: EnrichmentPipelineOptions): Record<StepName, Step> {
  const { ipSalt, geo } = options;
  const clock = options.clock ?? Date.now;
  const size = options.stepCacheSize ?? 10_000;
  const userAgents = createUserAgentParser({ cacheSize: options.userAgentCacheSize });
  const pageUrl = memoize(size, (url: string | null, origin: string) => parsePageUrl(url, origin));
  const referrer = memoize(size, (ref: string | null, url: string | null, origin: string) => ({
    referrer: normaliseReferrer(ref, url, origin),
  }));
  const sessionKey = memoize(size, (projectId: string, ip: string, userAgent: string) => ({
    sessionKey: deriveSessionKey(projectId, ip, userAgent, ipSalt),
  }));
  const storedIp = storedIpSteps(ipSalt, size);
  return {
    check_timestamp: (d) => {
      const reference = Number.isFinite(d.received_at) && d.received_at > 0 ? d.received_at : clock();
      return asDrop(checkTimestamp(d.timestamp, reference));
    },
    check_payload_depth: (d) => asDrop(checkPayloadDepth(d.payload)),
    put_geolocation: (d) => ({ geo: geo.lookup(d.ip) }),
    put_session_key: (d) => sessionKey(d.project_id, d.ip, d.user_agent),
    put_user_agent: (d) => userAgents.parse(d.user_agent),
    put_url: (d) => pageUrl(d.url, d.origin),
    put_referrer: (d) => referrer(d.referrer, d.url, d.origin),
    put_ip: (d, ipMode) => storedIp[ipMode](d.ip),
  };
}

/**
 * The stored IP per mode. `truncate` and `hash` are memoized (an HMAC per event is the costly
 * part); `full` only normalises. Without a salt, `hash` truncates instead: an unsalted hash of
 * an IPv4 address is reversed by hashing all 2^32 of them, and a project's policy cannot refuse
 * the event the way a bad SPOOR_IP_MODE refuses to start.
 */
function storedIpSteps(salt: string, size: number): Record<IpMode, (ip: string) => { ip: string }> {
  const truncate = memoize(size, (ip: string) => ({ ip: applyIpMode(ip, 'truncate', salt) }));
  return {
    full: (ip) => ({ ip: applyIpMode(ip, 'full', salt) }),
    truncate,
    hash: salt === '' ? truncate : memoize(size, (ip: string) => ({ ip: applyIpMode(ip, 'hash', salt) })),
  };
}

/**
 * Defaults for every enriched field, so a step that finds nothing can answer nothing.
 * Fields are listed, not spread from `raw`: a literal of fixed shape is several times
 * cheaper in V8 than `{...raw, …}` grown by ten more keys (measured: test/enrich-speed.ts),
 * and the compiler flags a RawEvent field added later but forgotten here.
 */
function initialDraft(raw: RawEvent): EnrichedDraft {
  return {
    event_id: raw.event_id,
    project_id: raw.project_id,
    project: raw.project,
    origin: raw.origin,
    action: raw.action,
    timestamp: raw.timestamp,
    client_timestamp: raw.client_timestamp,
    sent_at: raw.sent_at,
    received_at: raw.received_at,
    payload: raw.payload,
    session_id: raw.session_id,
    url: raw.url,
    referrer: raw.referrer,
    ip: raw.ip,
    user_agent: raw.user_agent,
    geo: EMPTY_GEO,
    browser: NO_NAME_VERSION,
    os: NO_NAME_VERSION,
    device: NO_DEVICE,
    bot: false,
    path: null,
    query: NO_QUERY,
    utm: EMPTY_UTM,
  };
}

function zeroCounters(): EnrichmentCounters {
  const counters = { enriched: 0 } as EnrichmentCounters;
  for (const reason of GUARD_DROP_REASONS) counters[reason] = 0;
  return counters;
}

/**
 * Enrichment as a pipeline of small named steps (Plausible's `drop_datacenter_ip →
 * put_geolocation → put_user_agent → put_referrer …`): each step is a function of the event
 * being built and is tested alone; any step may drop the event with a counted reason.
 * Bots are flagged, never dropped: they are stored and the sessionizer leaves them out.
 */
export function createEnrichmentPipeline(options: EnrichmentPipelineOptions): EnrichmentPipeline {
  if (!IP_MODES.includes(options.ipMode)) throw new RangeError(`unknown IP mode: ${String(options.ipMode)}`);
  if (options.ipMode === 'hash' && options.ipSalt === '') {
    // An unsalted hash of an IPv4 address is reversed by hashing all 2^32 of them.
    throw new RangeError('IP mode "hash" needs a non-empty salt');
  }
  const steps = buildSteps(options);
  const ordered = STEP_NAMES.map((name) => steps[name]);
  const counts = zeroCounters();
  return {
    enrich(raw: RawEvent, ipMode: IpMode = options.ipMode): EnrichResult {
      const event = initialDraft(raw);
      let sessionKey = '';
      for (const step of ordered) {
        const output = step(event, ipMode);
        if (output === null) continue;
        if ('drop' in output) {
          counts[output.drop] += 1;
          return { ok: false, reason: output.drop };
        }
        if ('sessionKey' in output) sessionKey = output.sessionKey;
        else Object.assign(event, output);
      }
      counts.enriched += 1;
      return { ok: true, event, sessionKey };
    },
    counters: () => ({ ...counts }),
  };
}
