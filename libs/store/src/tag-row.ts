// Row shape of the session_tag_facts table, shared by both backends (see event-row.ts). A row
// is one fact: (project, session, tag, source) with its latest changed_at (SessionTag,
// schemas/accounts.ts).
import type { SessionTag } from '@spoor/schemas';
import { toInt, toStr } from './column-values.js';

export const TAG_COLUMNS = ['project_id', 'tag', 'session_id', 'source', 'tagged_at', 'removed', 'changed_at'] as const;

export function tagToRow(t: SessionTag): Record<(typeof TAG_COLUMNS)[number], unknown> {
  return {
    project_id: t.project_id,
    tag: t.tag,
    session_id: t.session_id,
    source: t.source,
    tagged_at: t.tagged_at,
    removed: t.removed,
    changed_at: t.changed_at,
  };
}

export function rowToTagSeen(r: Record<string, unknown>): { tag: string; last_seen: number } {
  return { tag: toStr(r.tag), last_seen: toInt(r.last_seen) };
}

export function rowToSessionTag(r: Record<string, unknown>): { session_id: string; tag: string; last_seen: number } {
  return { session_id: toStr(r.session_id), tag: toStr(r.tag), last_seen: toInt(r.last_seen) };
}

export function rowToTaggedSession(r: Record<string, unknown>): { session_id: string; tagged_at: number } {
  return { session_id: toStr(r.session_id), tagged_at: toInt(r.tagged_at) };
}

/**
 * One fact per (project, session, tag, source): the greatest changed_at wins, a tie goes to the
 * later one in the batch (see latestPerSession). Both backends apply the same rule against
 * stored rows.
 */
export function latestPerFact(tags: SessionTag[]): SessionTag[] {
  const byKey = new Map<string, SessionTag>();
  for (const t of tags) {
    const key = `${t.project_id}\u0000${t.session_id}\u0000${t.tag}\u0000${t.source}`;
    const prev = byKey.get(key);
    if (!prev || t.changed_at >= prev.changed_at) byKey.set(key, t);
  }
  return [...byKey.values()];
}
