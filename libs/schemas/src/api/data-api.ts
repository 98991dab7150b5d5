// Data ownership (issue 17): exports of a project's rows and deletion of a project. Owners
// answer for their visitors' data under privacy law, so they must be able to take it out and
// to delete it (DESIGN.md, "Owners own their data"; docs/data.md).
import { z } from '../zod.js';
import { ScopeQuery, WindowQuery } from './common.js';

export const EXPORT_WHATS = ['events', 'enriched_events', 'sessions'] as const;
export const EXPORT_FORMATS = ['csv', 'ndjson', 'parquet'] as const;
export type ExportWhat = (typeof EXPORT_WHATS)[number];
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What GET /v1/exports/{id}/file answers for each format. */
export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson',
  parquet: 'application/vnd.apache.parquet',
};
export const EXPORT_EXTENSIONS: Record<ExportFormat, string> = { csv: 'csv', ndjson: 'ndjson', parquet: 'parquet' };

/**
 * POST /v1/exports. The window filters events on `timestamp` and sessions on `last_event_at`
 * (as their listings do), end exclusive; either end left out is open.
 */
export const ExportRequest = ScopeQuery.extend(WindowQuery.shape)
  .extend({
    what: z.enum(EXPORT_WHATS).openapi({ description: 'Raw events, enriched events or session summaries' }),
    format: z
      .enum(EXPORT_FORMATS)
      .openapi({ description: 'CSV with a header row, newline-delimited JSON, or Parquet' }),
  })
  .openapi('ExportRequest');

export const ExportPath = z.object({ export_id: z.string().min(1).max(64) });

/**
 * What POST /v1/exports answers: the export's job. An identical request (same project, `what`,
 * `format` and window) while an export of it is queued or running, or has succeeded, is not
 * expired and its rows have not changed since, answers that export (`reused`) rather than
 * writing another file (issue 42, docs/data.md).
 */
export const ExportQueued = z
  .object({
    job_id: z.string(),
    status: z.enum(['queued', 'running', 'succeeded']),
    reused: z.boolean().openapi({ description: 'True when an earlier identical export answers this request' }),
  })
  .openapi('ExportQueued');

/** What a finished export job answers as its `result`. */
export interface ExportResult {
  what: ExportWhat;
  format: ExportFormat;
  window_start: number | null;
  window_end: number | null;
  rows: number;
  bytes: number;
  content_type: string;
  file_name: string;
  /** After this (ms) the file is gone and GET /v1/exports/{id}/file answers 404. */
  expires_at: number;
  /**
   * The rows' count and latest change when they were written: an identical request is answered
   * with this export while the rows still have this mark (issue 42, docs/data.md).
   */
  mark: string;
}

/**
 * DELETE /v1/projects: `confirm` must repeat the project identifier, so that a mistyped or
 * scripted call cannot delete a project by accident (GitHub's "type the name to confirm").
 */
export const DeleteProjectQuery = ScopeQuery.extend({
  // Checked after the project is found (a 422 without it), so that a project of nobody answers
  // 404 as every scoped operation does, whatever else the request holds.
  confirm: z
    .string()
    .max(200)
    .optional()
    .openapi({ description: 'Required: the project identifier again, to confirm the deletion' }),
}).openapi('DeleteProjectQuery');

/** DELETE /v1/users/account: `confirm` repeats the account's email (its id when it has none). */
export const DeleteAccountQuery = z
  .object({
    confirm: z.string().max(320).optional().openapi({
      description: "Required: the account's email again (its account_id when it has no email), to confirm the deletion",
    }),
  })
  .openapi('DeleteAccountQuery');

/** The three ways to name the person an erasure removes (docs/data.md, Erasing a visitor). */
export const ERASURE_SELECTORS = ['session_id', 'visitor_id', 'ip'] as const;
export type ErasureSelectorName = (typeof ERASURE_SELECTORS)[number];

const isIpAddress = (v: string) => z.ipv4().safeParse(v).success || z.ipv6().safeParse(v).success;

/**
 * POST /v1/erasures: exactly one selector. An IP is matched as stored: the worker applies
 * SPOOR_IP_MODE to it first (truncated, an erasure by IP takes everyone of the /24 or /48).
 */
export const ErasureRequest = ScopeQuery.extend({
  session_id: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: 'Erase this session: its events, summary, tags and classification' }),
  visitor_id: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits')
    .optional()
    .openapi({
      description:
        'Erase this visitor (an IP as stored and user agent pair, as the overview counts visitors): hex SHA-256 of the IP as stored, a line feed and the user agent; every session of theirs goes',
    }),
  ip: z.string().max(64).refine(isIpAddress, 'must be an IPv4 or IPv6 address').optional().openapi({
    description: 'Erase every event stored with this IP address (after SPOOR_IP_MODE) and every session they belong to',
  }),
})
  .superRefine((r, ctx) => {
    const given = ERASURE_SELECTORS.filter((k) => r[k] !== undefined);
    if (given.length === 1) return;
    const message =
      given.length === 0
        ? 'Give one of session_id, visitor_id, ip'
        : `Give only one of session_id, visitor_id, ip (got ${given.join(', ')})`;
    ctx.addIssue({
      code: 'custom',
      message,
      path: given.length === 0 ? [] : [given[1]!],
      params: { type: 'value_error' },
    });
  })
  .openapi('ErasureRequest');
export type ErasureRequestInput = z.infer<typeof ErasureRequest>;

/** What a finished erasure job answers as its `result`. */
export interface ErasureResult {
  /** Sessions erased, with their summaries, tags and classifications. */
  sessions: number;
  /** Enriched events erased (their raw halves with them). */
  events: number;
  /** Stored overviews rebuilt because their window held erased events. */
  overviews_rebuilt: number;
  /** Stored transition matrices recounted because their window held erased events (issue 43). */
  transitions_rebuilt: number;
  /**
   * By when (ms) the raw copies of the erased events on the bus are gone too, at the latest
   * (SPOOR_BUS_RETENTION_HOURS; issue 43, docs/data.md "What is stored").
   */
  raw_copies_gone_by: number;
}
