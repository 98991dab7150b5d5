import { hash } from 'node:crypto';
import type { Kv } from '@spoor/kv';
import { kvKeys, kvTtlMs } from '@spoor/schemas';

/** Inactivity after which a derived session ends (DESIGN.md, Ingestion). */
export const SESSION_GAP_MS = 30 * 60 * 1000;
const STATE_TTL_MS = kvTtlMs.derivedSession;
const DAY_MS = 24 * 60 * 60 * 1000;

interface OpenSession {
  id: string;
  last: number;
}

export interface NeedsSession {
  /** The event being enriched; `session_id` is null until this step fills it. */
  draft: { project_id: string; timestamp: number; session_id: string | null };
  /** Stable hash of project, original IP and user agent (from @spoor/enrich). */
  sessionKey: string;
}

/**
 * The KV key of a visitor's open derived session. The project id leads, so deleting a project
 * finds every key of it by prefix (issue 17; libs/schemas kv-keys.ts).
 */
const openSessionKeyOf = (e: NeedsSession) => kvKeys.derivedSession(e.draft.project_id, e.sessionKey);

/** The derived id: project, IP and user agent (in sessionKey), the UTC day, and when it began. */
export function derivedSessionId(sessionKey: string, startedAt: number): string {
  const day = Math.floor(startedAt / DAY_MS);
  return hash('sha256', `${sessionKey}|${day}|${startedAt}`, 'hex').slice(0, 32);
}

/**
 * Gives events without a client session id the id of the visitor's open session, or starts a
 * new one after 30 minutes without events or at a new UTC day, by filling `draft.session_id` in
 * place. This is Plausible's register_session step: it runs before the event is stored, so every
 * stored enriched event carries its session id. Open sessions live in the KV (Redis), one read
 * and one write per batch.
 */
export async function assignSessions(items: NeedsSession[], kv: Kv): Promise<void> {
  const keys = [...new Set(items.filter((e) => e.draft.session_id === null).map(openSessionKeyOf))];
  if (keys.length === 0) return;
  const loaded = await kv.mget(keys);
  const open = new Map<string, OpenSession | null>(
    keys.map((k, i) => [k, loaded[i] ? (JSON.parse(loaded[i]!) as OpenSession) : null]),
  );
  for (const item of items) {
    const { draft, sessionKey } = item;
    if (draft.session_id !== null) continue;
    const key = openSessionKeyOf(item);
    let current = open.get(key) ?? null;
    const sameDay = current !== null && Math.floor(current.last / DAY_MS) === Math.floor(draft.timestamp / DAY_MS);
    if (current === null || !sameDay || Math.abs(draft.timestamp - current.last) > SESSION_GAP_MS) {
      current = { id: derivedSessionId(sessionKey, draft.timestamp), last: draft.timestamp };
    } else {
      current = { id: current.id, last: Math.max(current.last, draft.timestamp) };
    }
    open.set(key, current);
    draft.session_id = current.id;
  }
  await kv.mset(keys.map((key) => ({ key, value: JSON.stringify(open.get(key)), ttlMs: STATE_TTL_MS })));
}
