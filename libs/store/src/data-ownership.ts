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
  /** The rows' mark (ExportRepository.mark) taken just before they were written. */
  mark: string;
}

/** The rows an export reads: a project's `what` in the window. */
export type ExportSource = Pick<ExportSpec, 'project_id' | 'what' | 'window_start' | 'window_end'>;

/**
 * What an account's exports hold (issue 42, docs/data.md "Export"): what POST /v1/exports checks
 * its caps against, and the export it may answer instead of writing a new file.
 */
export interface ExportUsage {
  /** Export jobs queued or running, created in the last 24 hours (an older one is stuck, not at work). */
  active: number;
  /** Bytes of the files of succeeded exports not yet expired (`result.expires_at` > now). */
  bytes: number;
  /** The earliest `expires_at` among those files; null when none. */
  next_expiry: number | null;
  /**
   * The newest export of the same project and request that is queued or running (as `active`
   * counts them), or succeeded and not expired; `mark` is its result's (null until it succeeded).
   */
  same: { job_id: string; status: 'queued' | 'running' | 'succeeded'; mark: string | null } | null;
}

export interface ExportUsageQuery {
  account_id: string;
  now: number;
  project_id: string;
  /** The job request to match, exactly as dispatched (compared as the JSON text the jobs table holds). */
  request: Record<string, unknown>;
}

export interface ExportRepository {
  /**
   * Writes the project's rows of `what` in the window, oldest first, in `format` with the
   * engine's own writer. Writing an id again replaces its file (a job taken over after a crash).
   */
  write(spec: ExportSpec): Promise<ExportedFile>;
  /**
   * A mark of the rows an export of `source` would read: their count and their latest change
   * (`received_at` of events, `updated_at` of sessions). New, changed, erased or expired rows
   * move it, so an export whose mark still matches would write the same file again.
   */
  mark(source: ExportSource): Promise<string>;
  /** The account's exports at `now`, from the jobs table (see ExportUsage). */
  usage(query: ExportUsageQuery): Promise<ExportUsage>;
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
  /**
   * Sessions erased (their summaries, tag facts and classifications): those with a summary or
   * events; a named session that has neither is not counted (issue 43).
   */
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
  expire(projectId: string, before: number): Promise<DataExpired>;
}

/** What a retention pass took from a project: the stored overviews and matrices to recount (issue 43). */
export interface DataExpired {
  /**
   * From the oldest expired event or session end to the cut, end exclusive; null when nothing
   * was older than the cut.
   */
  window: { start: number; end: number } | null;
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

/**
 * The table, the time column the window filters on, the order of an export's rows, and the
 * column whose maximum moves when a row is added or changed (ExportRepository.mark).
 */
export const EXPORT_SOURCES: Record<ExportWhat, { table: string; time: string; order: string[]; changed: string }> = {
  events: { table: 'raw_events', time: 'timestamp', order: ['timestamp', 'event_id'], changed: 'received_at' },
  enriched_events: {
    table: 'enriched_events',
    time: 'timestamp',
    order: ['timestamp', 'event_id'],
    changed: 'received_at',
  },
  sessions: { table: 'sessions', time: 'last_event_at', order: ['last_event_at', 'session_id'], changed: 'updated_at' },
};

/** How long an export job may stay queued or running and still count as at work (ExportUsage.active). */
export const EXPORT_ACTIVE_MS = 24 * 3_600_000;

/** An ExportRepository.mark from its two figures (no rows: no latest change, whatever the engine says of an empty max). */
export const exportMark = (rows: number, changed: number | null): string =>
  rows === 0 ? '0:' : `${rows}:${changed ?? ''}`;

const EXPORT_ID = /^[A-Za-z0-9-]{1,64}$/;

/** Export ids become file names and SQL literals: only letters, digits and dashes pass. */
export function checkExportId(id: string): string {
  if (!EXPORT_ID.test(id)) throw new Error(`not a valid export id: ${JSON.stringify(id)}`);
  return id;
}
