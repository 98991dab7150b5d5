import type { Device, Geo, NameVersion, Utm } from './events.js';

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
 * What the sessionizer keeps per open session: the summary plus short hashes of the event ids
 * already applied, so that a redelivered or re-published event is never counted twice.
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

/** The KV key of an open session's state (sessionizer); a backfill drops it to force a reload. */
export const openSessionKey = (projectId: string, sessionId: string) => `ss:${projectId}:${sessionId}`;

/** A session summary as published on the session-updates topic. */
export type SessionUpdate = SessionSummary;

/** Actions that count as a page view: a session's page_count, an overview's top pages. */
export const PAGE_VIEW_ACTIONS: ReadonlySet<string> = new Set(['pageview', 'page_view', '$pageview', 'navigation', 'navigate']);
