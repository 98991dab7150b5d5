// The audit trail's writing side (issue 45, item 7; docs/security.md, Audit trail). A handler
// notes what it changed on its request's AuditRecorder (operation-route.ts hands one to every
// operation); once the handler has succeeded, defineOperation writes the notes through the
// process' AuditTrail, before the answer goes out. A failed write does not undo the change, nor
// turn its 200 into an error (the client would retry a change that was made): it is logged at
// error level with the whole entry, and counted (`audit_write_failures` in /healthz).
import { randomBytes } from 'node:crypto';
import type { AuditAction, AuditTargetKind } from '@spoor/schemas';
import type { AuditRecord, Store } from '@spoor/store';
import type { Logger } from '@spoor/service-log';
import type { Principal } from '../auth-guard.js';

export type AuditChanges = Record<string, { before: unknown; after: unknown }>;

/** What a handler notes about one change. */
export interface AuditNote {
  action: AuditAction;
  target: { kind: AuditTargetKind; id: string; name?: string | null };
  changes?: AuditChanges;
}

/** One request's notes, in the order they were made. */
export class AuditRecorder {
  readonly notes: Array<{ project_id: string; note: AuditNote }> = [];

  record(project: { project_id: string }, note: AuditNote): void {
    this.notes.push({ project_id: project.project_id, note });
  }
}

export interface AuditTrailDeps {
  store: Pick<Store, 'audit'>;
  clock: () => number;
  logger?: Logger | undefined;
}

let sequence = 0;

/**
 * An entry id that sorts by time, then by the order this process made them in (entries of one
 * request keep their order in a list, newest first), then at random across processes.
 */
export function newEntryId(at: number): string {
  sequence = (sequence + 1) % 0x1000000;
  return `${at.toString(16).padStart(12, '0')}${sequence.toString(16).padStart(6, '0')}${randomBytes(5).toString('hex')}`;
}

export class AuditTrail {
  #failures = 0;

  constructor(private readonly deps: AuditTrailDeps) {}

  /** Writes the request's notes as entries by `principal`; never throws (see the file's head). */
  async write(
    principal: Principal,
    recorder: AuditRecorder,
    declared: readonly AuditAction[] | undefined,
  ): Promise<void> {
    if (recorder.notes.length === 0) return;
    const at = this.deps.clock();
    const entries: AuditRecord[] = recorder.notes.map(({ project_id, note }) => ({
      project_id,
      entry_id: newEntryId(at),
      made_at: at,
      actor_id: principal.account_id,
      actor_email: principal.email,
      via: principal.via,
      api_key_name: principal.via === 'api_key' ? (principal.api_key_name ?? null) : null,
      action: note.action,
      target_kind: note.target.kind,
      target_id: note.target.id,
      target_name: note.target.name ?? null,
      changes: note.changes ?? {},
    }));
    const undeclared = entries.filter((e) => !declared?.includes(e.action as AuditAction));
    if (undeclared.length > 0)
      this.deps.logger?.error('audit action not declared by its operation', {
        actions: undeclared.map((e) => e.action),
      });
    try {
      await this.deps.store.audit.append(entries);
    } catch (err) {
      this.#failures += entries.length;
      for (const entry of entries)
        this.deps.logger?.error('audit entry not written: the change it records was made', {
          entry,
          error: err instanceof Error ? err.message : String(err),
        });
    }
  }

  stats(): Record<string, number> {
    return { audit_write_failures: this.#failures };
  }
}

/** The fields of `after` whose value differs from `before`'s, each as { before, after } (compared as JSON). */
export function changedFields<T extends object>(
  before: T | null,
  after: T | null,
  fields: ReadonlyArray<keyof T>,
): AuditChanges {
  const out: AuditChanges = {};
  for (const field of fields) {
    const b = before ? (before[field] ?? null) : null;
    const a = after ? (after[field] ?? null) : null;
    if (JSON.stringify(b) !== JSON.stringify(a)) out[String(field)] = { before: b, after: a };
  }
  return out;
}

/**
 * A URL as the trail shows it: scheme and host only. A chat or webhook URL often carries its
 * credential in its path or query (Slack's `/services/T…/B…/<token>`), which the trail must not keep.
 */
export function urlShown(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return null;
  }
}
