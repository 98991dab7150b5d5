import { createHash } from 'node:crypto';
import type { Kv } from '@spoor/kv';

/** Inactivity after which a derived session ends (DESIGN.md, Ingestion). */
export const SESSION_GAP_MS = 30 * 60 * 1000;
const STATE_TTL_MS = 2 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

interface OpenSession {
  id: string;
  last: number;
}

export interface NeedsSession {
  project_id: string;
  timestamp: number;
  session_id: string | null;
  /** Stable hash of project, original IP and user agent (from @spoor/enrich). */
  sessionKey: string;
}

/** The derived id: project, IP and user agent (in sessionKey), the UTC day, and when it began. */
export function derivedSessionId(sessionKey: string, startedAt: number): string {
  const day = Math.floor(startedAt / DAY_MS);
  return createHash('sha256').update(`${sessionKey}|${day}|${startedAt}`).digest('hex').slice(0, 32);
}

/**
 * Gives events without a client session id the id of the visitor's open session, or starts a
 * new one after 30 minutes without events or at a new UTC day. This is Plausible's
 * register_session step: it runs before the event is stored, so every stored enriched event
 * carries its session id. Open sessions live in the KV (Redis), one read and one write per batch.
 */
export async function assignSessions<E extends NeedsSession>(events: E[], kv: Kv): Promise<Array<E & { session_id: string }>> {
  const keys = [...new Set(events.filter((e) => e.session_id === null).map((e) => `sid:${e.sessionKey}`))];
  const loaded = await kv.mget(keys);
  const open = new Map<string, OpenSession | null>(keys.map((k, i) => [k, loaded[i] ? (JSON.parse(loaded[i]!) as OpenSession) : null]));
  const touched = new Set<string>();
  const out = events.map((e) => {
    if (e.session_id !== null) return { ...e, session_id: e.session_id };
    const key = `sid:${e.sessionKey}`;
    let current = open.get(key) ?? null;
    const sameDay = current !== null && Math.floor(current.last / DAY_MS) === Math.floor(e.timestamp / DAY_MS);
    if (current === null || !sameDay || Math.abs(e.timestamp - current.last) > SESSION_GAP_MS) {
      current = { id: derivedSessionId(e.sessionKey, e.timestamp), last: e.timestamp };
    } else {
      current = { id: current.id, last: Math.max(current.last, e.timestamp) };
    }
    open.set(key, current);
    touched.add(key);
    return { ...e, session_id: current.id };
  });
  await kv.mset([...touched].map((key) => ({ key, value: JSON.stringify(open.get(key)), ttlMs: STATE_TTL_MS })));
  return out;
}
