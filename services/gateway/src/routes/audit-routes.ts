// The audit trail of a project (issue 45, item 7; docs/security.md, Audit trail): owners and
// admins read who changed what and when, newest first, a page at a time.
import { errors } from '@spoor/http';
import { AuditList, AuditQuery, type AuditEntryData } from '@spoor/schemas';
import type { AuditRecord, Store } from '@spoor/store';
import { defineOperation, type RouteContext } from '../operation-route.js';
import { scopedProject } from '../project-scope.js';

/** A page's cursor: the last entry's time and id, base64url. Opaque to clients. */
function auditCursor(entry: { made_at: number; entry_id: string }): string {
  return Buffer.from(`${entry.made_at}.${entry.entry_id}`).toString('base64url');
}

function readCursor(cursor: string): { made_at: number; entry_id: string } {
  const match = /^(\d{1,16})\.([0-9a-f]{1,64})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match)
    throw errors.validation([
      {
        loc: ['query', 'cursor'],
        msg: 'must be a next_cursor this endpoint answered',
        type: 'value_error',
        input: cursor,
      },
    ]);
  return { made_at: Number(match[1]), entry_id: match[2]! };
}

function entryOf(r: AuditRecord): AuditEntryData {
  return {
    entry_id: r.entry_id,
    at: r.made_at,
    actor: { account_id: r.actor_id, email: r.actor_email, via: r.via, api_key_name: r.api_key_name },
    action: r.action as AuditEntryData['action'],
    target: { kind: r.target_kind as AuditEntryData['target']['kind'], id: r.target_id, name: r.target_name },
    changes: r.changes,
  };
}

export function auditRoutes(ctx: RouteContext, store: Store): void {
  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/projects/audit',
      summary:
        "The project's audit trail, newest first: who changed members, roles, rules, channels, webhooks, schedules, alerts, share links, settings and data, and when",
      tag: 'members',
      auth: true,
      role: 'admin',
      query: AuditQuery,
      response: AuditList,
    },
    async ({ query, principal }) => {
      const after = query.cursor === undefined ? undefined : readCursor(query.cursor);
      const project = await scopedProject(store, principal, query.origin, query.project);
      // One more than asked: whether there is a next page.
      const rows = await store.audit.list(project.project_id, {
        action: query.action,
        actor: query.actor,
        window_start: query.window_start,
        window_end: query.window_end,
        after,
        limit: query.limit + 1,
      });
      const page = rows.slice(0, query.limit);
      const last = page.at(-1);
      return {
        entries: page.map(entryOf),
        next_cursor: rows.length > query.limit && last ? auditCursor(last) : null,
      };
    },
  );
}
