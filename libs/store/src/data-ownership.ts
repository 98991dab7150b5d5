// What a store does for data ownership (issue 17, docs/data.md): exports written by the
// engine's own writer, and the deletion of everything a project holds.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ExportFormat, ExportWhat } from '@spoor/schemas';
import { ENRICHED_EVENT_COLUMNS, RAW_EVENT_COLUMNS } from './event-row.js';
import { SESSION_COLUMNS } from './session-row.js';

export interface ExportSpec {
  /** The export job's id: [A-Za-z0-9-], at most 64 characters. */
  export_id: string;
  project_id: string;
  what: ExportWhat;
  format: ExportFormat;
  /** Events filter on timestamp, sessions on last_event_at; start inclusive, end exclusive. */
  window_start: number | null;
  window_end: number | null;
  /** When the file was written (ms): purge() removes files by it. */
  written_at: number;
}

export interface ExportedFile {
  rows: number;
  bytes: number;
}

export interface ExportRepository {
  /**
   * Writes the project's rows of `what` in the window, oldest first, in `format` with the
   * engine's own writer. Writing an id again replaces its file (a job taken over after a crash).
   */
  write(spec: ExportSpec): Promise<ExportedFile>;
  /** The file's bytes, streamed; null when there is none (never written, removed, purged). */
  open(exportId: string): Promise<{ stream: Readable; bytes: number } | null>;
  /** Removes the files written before `before` (ms); answers how many. */
  purge(before: number): Promise<number>;
}

export interface ProjectErasure {
  /**
   * Deletes the project and every row that belongs to it: raw and enriched events, sessions,
   * actions, tag facts, rules, classifications, jobs (but `keepJobId`, the deleting job's own
   * record), records (overviews, channels, webhooks, deliveries, alerts, schedules…) and export
   * files. Idempotent: a second call (a job taken over) deletes what is left.
   */
  deleteProject(projectId: string, keepJobId: string): Promise<void>;
  /**
   * Deletes the account: its row (freeing its email), its API keys, and its jobs but
   * `keepJobId`. Its projects are not touched: the account deletion job deletes each with
   * deleteProject. Idempotent.
   */
  deleteAccount(accountId: string, keepJobId: string): Promise<void>;

  /**
   * Erases one person of the project (POST /v1/erasures, docs/data.md): the events the selector
   * matches, every session they belong to with all of its events, and what derives from those
   * sessions (tag facts, classifications); the action last-seen times of the erased actions are
   * recomputed from what is left. Idempotent: a second call finds nothing more to erase.
   */
  eraseVisitor(projectId: string, selector: VisitorSelector): Promise<VisitorErasure>;
}

/**
 * Whom to erase. `visitor_id` is the visitor as the overview counts them, an (IP as stored, user
 * agent) pair, named by `visitorIdOf`; `ips` are the stored forms of one address (the worker
 * applies SPOOR_IP_MODE to the address it was given).
 */
export type VisitorSelector = { session_id: string } | { visitor_id: string } | { ips: string[] };

export interface VisitorErasure {
  /** Sessions erased (their summaries, tag facts and classifications). */
  session_ids: string[];
  /** Enriched events erased (raw events go with them). */
  events: number;
  /** The erased events' time span, end exclusive; null when nothing was erased (overviews to rebuild). */
  window: { start: number; end: number } | null;
}

/**
 * The visitor id of an (IP as stored, user agent) pair: the SHA-256 of `ip`, a line feed and the
 * user agent, in lower-case hex. Neither part can hold a line feed (an IP never does; HTTP header
 * values cannot), so the join is unambiguous; both engines compute the same in SQL.
 */
export function visitorIdOf(ip: string, userAgent: string): string {
  return createHash('sha256').update(`${ip}\n${userAgent}`).digest('hex');
}

export interface DataExpiry {
  /**
   * Deletes the project's raw and enriched events with timestamp < before, and its sessions
   * with last_event_at < before together with their tag facts and classification. Other
   * projects, and the project's newer rows, are untouched. Idempotent.
   */
  expire(projectId: string, before: number): Promise<void>;
}

/**
 * The columns an export carries, the same in both engines: the stored row without the internal
 * project_id (and a session's replay bookkeeping, `seen`). JSON-valued columns (payload, query,
 * actions, attributes, tags, classification) are JSON text in every format.
 */
export const EXPORT_COLUMNS: Record<ExportWhat, readonly string[]> = {
  events: RAW_EVENT_COLUMNS.filter((c) => c !== 'project_id'),
  enriched_events: ENRICHED_EVENT_COLUMNS.filter((c) => c !== 'project_id'),
  sessions: SESSION_COLUMNS.filter((c) => c !== 'project_id' && c !== 'seen'),
};

/** The table, the time column the window filters on, and the order of an export's rows. */
export const EXPORT_SOURCES: Record<ExportWhat, { table: string; time: string; order: string[] }> = {
  events: { table: 'raw_events', time: 'timestamp', order: ['timestamp', 'event_id'] },
  enriched_events: { table: 'enriched_events', time: 'timestamp', order: ['timestamp', 'event_id'] },
  sessions: { table: 'sessions', time: 'last_event_at', order: ['last_event_at', 'session_id'] },
};

const EXPORT_ID = /^[A-Za-z0-9-]{1,64}$/;

/** Export ids become file names and SQL literals: only letters, digits and dashes pass. */
export function checkExportId(id: string): string {
  if (!EXPORT_ID.test(id)) throw new Error(`not a valid export id: ${JSON.stringify(id)}`);
  return id;
}
