// The embedded store keeps each event in ONE row of `events` (migration step 7): the enriched
// event, plus the three raw columns enrichment rewrites (raw_ip, raw_url, raw_referrer) and a
// flag per half. `raw_events` and `enriched_events` are views over it, so every read is unchanged.
// Measured (issue 14, 100,000 events in 5,000-event batches, one process): the two tables with a
// stage and two INSERT … SELECT cost 68 µs of CPU an event; one row appended straight into the
// table, 42 µs. The raw and enriched halves of an event always share every other column (the
// enricher copies them), which is what makes one row enough.
import { hash } from 'node:crypto';
import type { DuckDBAppender } from '@duckdb/node-api';
import type { EnrichedEvent, RawEvent } from '@spoor/schemas';
import { quote } from './duckdb-connection.js';

/** One event as the insert paths see it: either half may be missing (insertRaw, insertEnriched). */
export interface EventHalves {
  raw: RawEvent | null;
  enriched: EnrichedEvent | null;
  /** eventKey(project_id, event_id). */
  key: bigint;
}

type Put = (a: DuckDBAppender, e: EventHalves) => void;
/** Which half of the event a column belongs to: a merge fills a half the stored row lacks. */
type Half = 'shared' | 'raw' | 'enriched' | 'flags';
type Column = readonly [name: string, put: Put, half: Half];

const text = (a: DuckDBAppender, v: string | null | undefined) =>
  v === null || v === undefined ? a.appendNull() : a.appendVarchar(v);
const bigint = (a: DuckDBAppender, v: number | null | undefined) =>
  v === null || v === undefined ? a.appendNull() : a.appendBigInt(BigInt(v));
const double = (a: DuckDBAppender, v: number | null | undefined) =>
  v === null || v === undefined ? a.appendNull() : a.appendDouble(v);
const json = (a: DuckDBAppender, v: unknown) => a.appendVarchar(JSON.stringify(v ?? {}));

/** The half shared by both: the enriched event when there is one (the same values, per the enricher). */
const common = (e: EventHalves) => (e.enriched ?? e.raw)!;
const shared = (name: string, put: (a: DuckDBAppender, v: RawEvent) => void): Column => [
  name,
  (a, e) => put(a, common(e)),
  'shared',
];
/** An enriched-only column: null on a raw-only row. */
const enrichedOnly = (name: string, put: (a: DuckDBAppender, v: EnrichedEvent) => void): Column => [
  name,
  (a, e) => (e.enriched === null ? a.appendNull() : put(a, e.enriched)),
  'enriched',
];
/** ip, url, referrer: the enriched value, or the raw one on a raw-only row. */
const rewritten = (name: 'ip' | 'url' | 'referrer'): Column => [name, (a, e) => text(a, common(e)[name]), 'enriched'];
const rawOnly = (name: 'ip' | 'url' | 'referrer'): Column => [
  `raw_${name}`,
  (a, e) => (e.raw === null ? a.appendNull() : text(a, e.raw[name])),
  'raw',
];

/**
 * Every column of `events` in its physical order (migrations.ts, step 7), with how it is appended.
 * A test compares the names with DESCRIBE events.
 */
export const EVENTS_TABLE: readonly Column[] = [
  shared('project_id', (a, v) => text(a, v.project_id)),
  shared('event_id', (a, v) => text(a, v.event_id)),
  shared('project', (a, v) => text(a, v.project)),
  shared('origin', (a, v) => text(a, v.origin)),
  shared('action', (a, v) => text(a, v.action)),
  shared('timestamp', (a, v) => bigint(a, v.timestamp)),
  shared('client_timestamp', (a, v) => bigint(a, v.client_timestamp)),
  shared('sent_at', (a, v) => bigint(a, v.sent_at)),
  shared('received_at', (a, v) => bigint(a, v.received_at)),
  shared('payload', (a, v) => json(a, v.payload)),
  shared('session_id', (a, v) => text(a, v.session_id)),
  rewritten('url'),
  rewritten('referrer'),
  rewritten('ip'),
  shared('user_agent', (a, v) => text(a, v.user_agent)),
  enrichedOnly('utm_source', (a, v) => text(a, v.utm.source)),
  enrichedOnly('utm_medium', (a, v) => text(a, v.utm.medium)),
  enrichedOnly('utm_campaign', (a, v) => text(a, v.utm.campaign)),
  enrichedOnly('utm_term', (a, v) => text(a, v.utm.term)),
  enrichedOnly('utm_content', (a, v) => text(a, v.utm.content)),
  enrichedOnly('browser_name', (a, v) => text(a, v.browser.name)),
  enrichedOnly('browser_version', (a, v) => text(a, v.browser.version)),
  enrichedOnly('os_name', (a, v) => text(a, v.os.name)),
  enrichedOnly('os_version', (a, v) => text(a, v.os.version)),
  enrichedOnly('device_type', (a, v) => text(a, v.device.type)),
  enrichedOnly('device_vendor', (a, v) => text(a, v.device.vendor)),
  enrichedOnly('device_model', (a, v) => text(a, v.device.model)),
  enrichedOnly('geo_country', (a, v) => text(a, v.geo.country)),
  enrichedOnly('geo_region', (a, v) => text(a, v.geo.region)),
  enrichedOnly('geo_city', (a, v) => text(a, v.geo.city)),
  enrichedOnly('geo_latitude', (a, v) => double(a, v.geo.latitude)),
  enrichedOnly('geo_longitude', (a, v) => double(a, v.geo.longitude)),
  enrichedOnly('bot', (a, v) => a.appendBoolean(v.bot)),
  enrichedOnly('path', (a, v) => text(a, v.path)),
  enrichedOnly('query', (a, v) => json(a, v.query)),
  rawOnly('ip'),
  rawOnly('url'),
  rawOnly('referrer'),
  ['has_raw', (a, e) => a.appendBoolean(e.raw !== null), 'flags'],
  ['has_enriched', (a, e) => a.appendBoolean(e.enriched !== null), 'flags'],
  ['event_key', (a, e) => a.appendUHugeInt(e.key), 'flags'],
];

const PUTS = EVENTS_TABLE.map(([, put]) => put);

/** One row of `events`, in EVENTS_TABLE's order. */
export function appendEventRow(a: DuckDBAppender, e: EventHalves): void {
  for (let i = 0; i < PUTS.length; i++) PUTS[i]!(a, e);
  a.endRow();
}

/**
 * EVENT_KEY computed here: md5 of project_id, U+001F, event_id, read as a little-endian 128-bit
 * number. The hex digest's bytes reversed and read as one hexadecimal BigInt: 0.9–1.1 µs an event
 * against 1.9–2.8 for a Hash object and two 64-bit reads (issue 14, one per event in the pipeline).
 */
export function eventKey(projectId: string, eventId: string): bigint {
  const hex = hash('md5', `${projectId}\u001f${eventId}`, 'hex');
  let le = '0x';
  for (let i = 30; i >= 0; i -= 2) le += hex[i]! + hex[i + 1]!;
  return BigInt(le);
}

/** One event's row to be: either half may be null, not both. */
export function eventHalves(raw: RawEvent | null, enriched: EnrichedEvent | null): EventHalves {
  const e = (enriched ?? raw)!;
  return { raw, enriched, key: eventKey(e.project_id, e.event_id) };
}

export const EVENTS_STAGE = 'stage_events';
export const CREATE_EVENTS_STAGE = `CREATE OR REPLACE TEMP TABLE ${EVENTS_STAGE} AS SELECT * FROM events LIMIT 0`;

const half = (which: Half) => EVENTS_TABLE.filter(([, , h]) => h === which).map(([n]) => n);
const takeHalf = (flag: string) => (c: string) =>
  `${quote(c)} = CASE WHEN events.${flag} OR NOT s.${flag} THEN events.${quote(c)} ELSE s.${quote(c)} END`;

/** `event_keys`' columns (migrations.ts, step 9), for the table's rotation. */
export const EVENT_KEYS_COLUMNS = `event_key UHUGEINT PRIMARY KEY, project_id VARCHAR NOT NULL, "timestamp" BIGINT NOT NULL`;

/** One row of `event_keys`, in its column order. */
export function appendKeyRow(a: DuckDBAppender, e: EventHalves): void {
  const c = common(e);
  a.appendUHugeInt(e.key);
  a.appendVarchar(c.project_id);
  a.appendBigInt(BigInt(c.timestamp));
  a.endRow();
}

/** The staged rows whose key is remembered: how many, and the span of their stored timestamps. */
export const STORED_OF_STAGE = `SELECT count(*) AS n, min(k."timestamp") AS lo, max(k."timestamp") AS hi
  FROM event_keys k WHERE k.event_key IN (SELECT event_key FROM ${EVENTS_STAGE})`;

/**
 * The slow path's first half: a stored row keeps its first write; a half it lacks (raw or
 * enriched) is filled from the staged row. Only rows whose key is remembered in `event_keys`,
 * found at the stored timestamp ($1, $2: the span of STORED_OF_STAGE, which lets the zone maps
 * skip the rest of the table).
 */
export const FILL_HALVES_FROM_STAGE = `UPDATE events SET
    ${[...half('raw').map(takeHalf('has_raw')), ...half('enriched').map(takeHalf('has_enriched'))].join(',\n    ')},
    has_raw = events.has_raw OR s.has_raw,
    has_enriched = events.has_enriched OR s.has_enriched
  FROM ${EVENTS_STAGE} s JOIN event_keys k ON k.event_key = s.event_key
  WHERE events.event_key = s.event_key AND events."timestamp" = k."timestamp"
    AND events."timestamp" BETWEEN $1 AND $2
    AND NOT (events.has_raw AND events.has_enriched)`;

/**
 * The slow path's second half: staged rows whose key is not remembered, into `events`; then the
 * staged keys, where the key's own index skips those already there (one scan of `event_keys`, not two).
 */
export const INSERT_NEW_FROM_STAGE = [
  `INSERT INTO events SELECT * FROM ${EVENTS_STAGE} WHERE event_key NOT IN (SELECT event_key FROM event_keys)`,
  `INSERT INTO event_keys SELECT event_key, project_id, "timestamp" FROM ${EVENTS_STAGE} ON CONFLICT DO NOTHING`,
] as const;
