import type { Device, EnrichedEvent, Geo, NameVersion, Utm } from './events.js';

/** Session summary (DESIGN.md, Ingestion: the fields a summary holds at least). */
export interface SessionSummary {
  session_id: string;
  project_id: string;
  first_event_at: number;
  last_event_at: number;
  duration_ms: number;
  event_count: number;
  actions: Record<string, number>;
  entry_url: string | null;
  exit_url: string | null;
  page_count: number;
  referrer: string | null;
  utm: Utm;
  browser: NameVersion;
  os: NameVersion;
  device: Device;
  geo: Geo;
  attributes: Record<string, unknown>;
  tags: string[];
  classification: { rule_ids: string[]; labels: string[] } | null;
  updated_at: number;
}

/**
 * What the sessionizer keeps per open session: the summary plus what it has applied, so that a
 * redelivered or re-published event is never counted twice: short hashes of the latest event ids
 * and the bus position applied through (services/sessionizer/src/session-summary.ts).
 */
export interface SessionState extends SessionSummary {
  seen: string[];
}

export interface SessionListItem {
  session_id: string;
  first_event_at: number;
  last_event_at: number;
  event_count: number;
}

export interface ActionSeen {
  action: string;
  last_seen: number;
}

/**
 * An enriched event on its way into a session, with the bus position it was read from
 * (`source` = topic/partition, `offset` within it): a replayed batch repeats positions the
 * session has already applied, and the sessionizer skips them.
 */
export interface SessionInput {
  event: EnrichedEvent;
  source: string;
  offset: number;
  /** The raw message's W3C traceparent, passed on to the enriched message (issue 19). */
  traceparent?: string | undefined;
}

/**
 * The header on an enriched message naming the raw message it was made from, `<topic>/<partition>#<offset>`.
 * The sessionizer marks sessions with this position rather than the enriched message's own: an
 * enricher that dies before committing leaves its output published, and the copy that takes its
 * partitions over publishes the same events again at new enriched offsets, but from the same raw
 * positions, so the replay is recognised whatever its length (issue 16).
 */
export const RAW_POSITION_HEADER = 'spoor-raw-position';

export function formatRawPosition(source: string, offset: number): string {
  return `${source}#${offset}`;
}

/** The position in a RAW_POSITION_HEADER, or null when it is missing or not one. */
export function parseRawPosition(text: string | undefined): { source: string; offset: number } | null {
  if (!text) return null;
  const at = text.lastIndexOf('#');
  const offset = at > 0 ? Number(text.slice(at + 1)) : NaN;
  return Number.isSafeInteger(offset) && offset >= 0 ? { source: text.slice(0, at), offset } : null;
}

/** A session summary as published on the session-updates topic. */
export type SessionUpdate = SessionSummary;

/** What the classifier announces on the rule-matches topic when a rule starts matching a session. */
export interface RuleMatch {
  project_id: string;
  session_id: string;
  rule_id: string;
  label: string | null;
  tags: string[];
  matched_at: number;
  session_last_event_at: number;
}

/** Actions that count as a page view: a session's page_count, an overview's top pages. */
export const PAGE_VIEW_ACTIONS: ReadonlySet<string> = new Set([
  'pageview',
  'page_view',
  '$pageview',
  'navigation',
  'navigate',
]);
