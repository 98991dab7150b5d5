// The audit trail of each project (issue 45, item 7; docs/security.md, Audit trail): one row per
// recorded change, appended by the gateway after the change succeeded, never updated. Entries
// leave with the project's retention days (DataRetention's daily pass: `expire`) and with the
// project (ProjectErasure.deleteProject).
import { toInt, toStr, toStrOrNull, toStructured } from './column-values.js';

export interface AuditRecord {
  project_id: string;
  entry_id: string;
  /** When the change was made, ms (`at` in the API; DuckDB reserves the word). */
  made_at: number;
  actor_id: string;
  actor_email: string | null;
  via: 'token' | 'api_key';
  api_key_name: string | null;
  /** `<category>.<verb>` (AUDIT_ACTIONS in libs/schemas). */
  action: string;
  target_kind: string;
  target_id: string;
  target_name: string | null;
  /** Changed fields by name, `{ before, after }`; stored as JSON text. */
  changes: Record<string, { before: unknown; after: unknown }>;
}

export interface AuditListQuery {
  /** One action (`member.removed`), or a category (`member`): every `member.*`. */
  action?: string | undefined;
  /** An account id, or an email compared lowercased. */
  actor?: string | undefined;
  /** On `made_at`, start inclusive, end exclusive. */
  window_start?: number | undefined;
  window_end?: number | undefined;
  /** Only entries after this one in the list's order (newest first, then entry_id descending): a page's cursor. */
  after?: { made_at: number; entry_id: string } | undefined;
  limit: number;
}

export interface AuditRepository {
  /** Appends entries; an entry_id written again is stored once. */
  append(entries: AuditRecord[]): Promise<void>;
  /** Newest first, then entry_id descending. */
  list(projectId: string, q: AuditListQuery): Promise<AuditRecord[]>;
  /** Deletes the project's entries with made_at < before (the retention pass). */
  expire(projectId: string, before: number): Promise<void>;
}

export const AUDIT_COLUMNS = [
  'project_id',
  'entry_id',
  'made_at',
  'actor_id',
  'actor_email',
  'via',
  'api_key_name',
  'action',
  'target_kind',
  'target_id',
  'target_name',
  'changes',
] as const;

type Row = Record<string, unknown>;

export function auditToRow(r: AuditRecord): Row {
  return { ...r, changes: JSON.stringify(r.changes) };
}

export function rowToAudit(r: Row): AuditRecord {
  return {
    project_id: toStr(r.project_id),
    entry_id: toStr(r.entry_id),
    made_at: toInt(r.made_at),
    actor_id: toStr(r.actor_id),
    actor_email: toStrOrNull(r.actor_email),
    via: toStr(r.via) === 'api_key' ? 'api_key' : 'token',
    api_key_name: toStrOrNull(r.api_key_name),
    action: toStr(r.action),
    target_kind: toStr(r.target_kind),
    target_id: toStr(r.target_id),
    target_name: toStrOrNull(r.target_name),
    changes: toStructured<AuditRecord['changes']>(r.changes),
  };
}

/** `action` as a filter: an exact action, or with no dot a category, matched as the prefix `<category>.`. */
export function actionFilter(action: string | undefined): { exact: string; prefix: string } {
  if (!action) return { exact: '', prefix: '' };
  return action.includes('.') ? { exact: action, prefix: '' } : { exact: '', prefix: `${action}.` };
}
