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
    format: z.enum(EXPORT_FORMATS).openapi({ description: 'CSV with a header row, newline-delimited JSON, or Parquet' }),
  })
  .openapi('ExportRequest');

export const ExportPath = z.object({ export_id: z.string().min(1).max(64) });

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
}

/**
 * DELETE /v1/projects: `confirm` must repeat the project identifier, so that a mistyped or
 * scripted call cannot delete a project by accident (GitHub's "type the name to confirm").
 */
export const DeleteProjectQuery = ScopeQuery.extend({
  // Checked after the project is found (a 422 without it), so that a project of nobody answers
  // 404 as every scoped operation does, whatever else the request holds.
  confirm: z.string().max(200).optional().openapi({ description: 'Required: the project identifier again, to confirm the deletion' }),
}).openapi('DeleteProjectQuery');

/** DELETE /v1/users/account: `confirm` repeats the account's email (its id when it has none). */
export const DeleteAccountQuery = z.object({
  confirm: z.string().max(320).optional().openapi({ description: "Required: the account's email again (its account_id when it has no email), to confirm the deletion" }),
}).openapi('DeleteAccountQuery');
