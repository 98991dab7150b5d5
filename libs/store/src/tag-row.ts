// Row shape of the session_tags table, shared by both backends (see event-row.ts).
import type { SessionTag } from '@spoor/schemas';
import { toInt, toStr } from './column-values.js';

export function rowToTagSeen(r: Record<string, unknown>): { tag: string; last_seen: number } {
  return { tag: toStr(r.tag), last_seen: toInt(r.last_seen) };
}

export function rowToTaggedSession(r: Record<string, unknown>): { session_id: string; tagged_at: number } {
  return { session_id: toStr(r.session_id), tagged_at: toInt(r.tagged_at) };
}

/** One row per (project, session, tag), the latest tagged_at (see latestPerAction). */
export function latestPerTag(tags: SessionTag[]): SessionTag[] {
  const byKey = new Map<string, SessionTag>();
  for (const t of tags) {
    const key = `${t.project_id}\u0000${t.session_id}\u0000${t.tag}`;
    const prev = byKey.get(key);
    if (!prev || t.tagged_at > prev.tagged_at) byKey.set(key, t);
  }
  return [...byKey.values()];
}
