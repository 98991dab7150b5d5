// The enricher's write in the embedded store (issue 14): the raw and the enriched row of each
// event staged once, with the three raw columns that enrichment may change beside the enriched
// ones, then moved into both tables by two INSERT … SELECT in one transaction. Appended straight
// from the event objects in column order: the generic stage() built a row object per event and
// looked each value up by name, about as costly as DuckDB's own insert.
import type { DuckDBAppender } from '@duckdb/node-api';
import type { EnrichedEvent } from '@spoor/schemas';
import { ENRICHED_EVENT_COLUMNS, RAW_EVENT_COLUMNS } from '../event-row.js';
import type { EventPair } from '../store.js';
import { quote } from './duckdb-connection.js';
import { EVENT_KEY } from './migrations.js';

export const EVENT_STAGE = 'stage_event_pairs';

/** The raw columns enrichment rewrites (IP mode, URL and referrer normalisation). */
const RAW_ONLY = { ip: 'raw_ip', url: 'raw_url', referrer: 'raw_referrer' } as const;

export const CREATE_EVENT_STAGE = `CREATE OR REPLACE TEMP TABLE ${EVENT_STAGE} AS SELECT ${ENRICHED_EVENT_COLUMNS.map(quote).join(', ')},
  ip AS raw_ip, url AS raw_url, referrer AS raw_referrer FROM enriched_events LIMIT 0`;

const rawSource = RAW_EVENT_COLUMNS.map((c) => (c in RAW_ONLY ? `${RAW_ONLY[c as keyof typeof RAW_ONLY]} AS ${quote(c)}` : quote(c))).join(', ');
export const INSERT_RAW_FROM_STAGE = `INSERT INTO raw_events (${RAW_EVENT_COLUMNS.map(quote).join(', ')}, event_key)
  SELECT ${rawSource}, ${EVENT_KEY} FROM ${EVENT_STAGE} ON CONFLICT DO NOTHING`;
export const INSERT_ENRICHED_FROM_STAGE = `INSERT INTO enriched_events (${ENRICHED_EVENT_COLUMNS.map(quote).join(', ')}, event_key)
  SELECT ${ENRICHED_EVENT_COLUMNS.map(quote).join(', ')}, ${EVENT_KEY} FROM ${EVENT_STAGE} ON CONFLICT DO NOTHING`;

const text = (a: DuckDBAppender, v: string | null | undefined) => (v === null || v === undefined ? a.appendNull() : a.appendVarchar(v));
const bigint = (a: DuckDBAppender, v: number | null | undefined) => (v === null || v === undefined ? a.appendNull() : a.appendBigInt(BigInt(v)));
const double = (a: DuckDBAppender, v: number | null | undefined) => (v === null || v === undefined ? a.appendNull() : a.appendDouble(v));

/** One stage row, in CREATE_EVENT_STAGE's column order (ENRICHED_EVENT_COLUMNS, then raw_ip, raw_url, raw_referrer). */
export function appendEventPair(a: DuckDBAppender, { raw, enriched: e }: EventPair): void {
  text(a, e.project_id); text(a, e.event_id); text(a, e.project); text(a, e.origin); text(a, e.action);
  bigint(a, e.timestamp); bigint(a, e.client_timestamp); bigint(a, e.sent_at); bigint(a, e.received_at);
  a.appendVarchar(JSON.stringify(e.payload));
  text(a, e.session_id); text(a, e.url); text(a, e.referrer); text(a, e.ip); text(a, e.user_agent);
  appendEnrichment(a, e);
  text(a, raw.ip); text(a, raw.url); text(a, raw.referrer);
  a.endRow();
}

function appendEnrichment(a: DuckDBAppender, e: EnrichedEvent): void {
  text(a, e.geo.country); text(a, e.geo.region); text(a, e.geo.city); double(a, e.geo.latitude); double(a, e.geo.longitude);
  text(a, e.browser.name); text(a, e.browser.version); text(a, e.os.name); text(a, e.os.version);
  text(a, e.device.type); text(a, e.device.vendor); text(a, e.device.model);
  a.appendBoolean(e.bot); text(a, e.path); a.appendVarchar(JSON.stringify(e.query ?? {}));
  text(a, e.utm.source); text(a, e.utm.medium); text(a, e.utm.campaign); text(a, e.utm.term); text(a, e.utm.content);
}
