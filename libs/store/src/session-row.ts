// The flat row shape of the sessions table, shared by both backends (see event-row.ts).
import type { SessionListItem, SessionState } from '@spoor/schemas';
import type { SessionSpan } from './store.js';
import { toCountMap, toFloatOrNull, toInt, toStr, toStrOrNull, toStringList, toStructured } from './column-values.js';

export const SESSION_COLUMNS = [
  'project_id',
  'session_id',
  'first_event_at',
  'last_event_at',
  'duration_ms',
  'event_count',
  'actions',
  'entry_url',
  'exit_url',
  'page_count',
  'referrer',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'browser_name',
  'browser_version',
  'os_name',
  'os_version',
  'device_type',
  'device_vendor',
  'device_model',
  'geo_country',
  'geo_region',
  'geo_city',
  'geo_latitude',
  'geo_longitude',
  'attributes',
  'tags',
  'classification',
  'seen',
  'updated_at',
] as const;

export type SessionColumn = (typeof SESSION_COLUMNS)[number];
export type SessionRow = Record<SessionColumn, unknown>;

export function sessionToRow(s: SessionState): SessionRow {
  return {
    project_id: s.project_id,
    session_id: s.session_id,
    first_event_at: s.first_event_at,
    last_event_at: s.last_event_at,
    duration_ms: s.duration_ms,
    event_count: s.event_count,
    actions: s.actions,
    entry_url: s.entry_url,
    exit_url: s.exit_url,
    page_count: s.page_count,
    referrer: s.referrer,
    utm_source: s.utm.source,
    utm_medium: s.utm.medium,
    utm_campaign: s.utm.campaign,
    utm_term: s.utm.term,
    utm_content: s.utm.content,
    browser_name: s.browser.name,
    browser_version: s.browser.version,
    os_name: s.os.name,
    os_version: s.os.version,
    device_type: s.device.type,
    device_vendor: s.device.vendor,
    device_model: s.device.model,
    geo_country: s.geo.country,
    geo_region: s.geo.region,
    geo_city: s.geo.city,
    geo_latitude: s.geo.latitude,
    geo_longitude: s.geo.longitude,
    attributes: s.attributes,
    tags: s.tags,
    classification: s.classification,
    seen: s.seen,
    updated_at: s.updated_at,
  };
}

export function rowToSession(r: Record<string, unknown>): SessionState {
  return {
    session_id: toStr(r.session_id),
    project_id: toStr(r.project_id),
    first_event_at: toInt(r.first_event_at),
    last_event_at: toInt(r.last_event_at),
    duration_ms: toInt(r.duration_ms),
    event_count: toInt(r.event_count),
    actions: toCountMap(r.actions),
    entry_url: toStrOrNull(r.entry_url),
    exit_url: toStrOrNull(r.exit_url),
    page_count: toInt(r.page_count),
    referrer: toStrOrNull(r.referrer),
    utm: {
      source: toStrOrNull(r.utm_source),
      medium: toStrOrNull(r.utm_medium),
      campaign: toStrOrNull(r.utm_campaign),
      term: toStrOrNull(r.utm_term),
      content: toStrOrNull(r.utm_content),
    },
    browser: { name: toStrOrNull(r.browser_name), version: toStrOrNull(r.browser_version) },
    os: { name: toStrOrNull(r.os_name), version: toStrOrNull(r.os_version) },
    device: {
      type: toStrOrNull(r.device_type),
      vendor: toStrOrNull(r.device_vendor),
      model: toStrOrNull(r.device_model),
    },
    geo: {
      country: toStrOrNull(r.geo_country),
      region: toStrOrNull(r.geo_region),
      city: toStrOrNull(r.geo_city),
      latitude: toFloatOrNull(r.geo_latitude),
      longitude: toFloatOrNull(r.geo_longitude),
    },
    attributes: toStructured<Record<string, unknown>>(r.attributes) ?? {},
    tags: toStringList(r.tags),
    classification: toStructured<SessionState['classification']>(r.classification) ?? null,
    seen: toStringList(r.seen),
    updated_at: toInt(r.updated_at),
  };
}

export function rowToSessionListItem(r: Record<string, unknown>): SessionListItem {
  return {
    session_id: toStr(r.session_id),
    first_event_at: toInt(r.first_event_at),
    last_event_at: toInt(r.last_event_at),
    event_count: toInt(r.event_count),
  };
}

/** A session's time range (SessionRepository.span), from a row with those two columns. */
export function rowToSessionSpan(r: Record<string, unknown>): SessionSpan {
  return { first_event_at: toInt(r.first_event_at), last_event_at: toInt(r.last_event_at) };
}

/**
 * One state per (project_id, session_id): the greatest updated_at wins, a tie goes to the
 * later one in the batch. Both backends apply the same rule against stored rows.
 */
export function latestPerSession(sessions: SessionState[]): SessionState[] {
  const byKey = new Map<string, SessionState>();
  for (const s of sessions) {
    const key = `${s.project_id}\u0000${s.session_id}`;
    const prev = byKey.get(key);
    if (!prev || s.updated_at >= prev.updated_at) byKey.set(key, s);
  }
  return [...byKey.values()];
}
