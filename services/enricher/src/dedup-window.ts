import { LruCache } from '@spoor/enrich';
import type { Kv } from '@spoor/kv';
import { kvKeys, kvTtlMs } from '@spoor/schemas';

/** One event's claim: its project and event id, and the bus position of the message carrying it. */
export interface DedupClaim {
  projectId: string;
  eventId: string;
  position: string;
}

const localKey = (c: DedupClaim) => `${c.projectId}:${c.eventId}`;

/**
 * Remembers which (project, event_id) have gone through, and at which bus position. A claim
 * passes when the key is new, or when it is the very message that claimed it being redelivered
 * after a crash (same position): that one must go through again.
 */
export interface DedupWindow {
  claim(claims: DedupClaim[]): Promise<boolean[]>;
}

/** Client retries come within minutes; a repeated event_id within this window is dropped early. */
export const DEDUP_TTL_MS = kvTtlMs.dedup;

/**
 * Shared by every enricher through the KV (Redis): `SET NX` with the position, then a read of
 * the holder for keys already taken. Issued together so that ioredis pipelines them.
 */
export function kvDedupWindow(kv: Kv): DedupWindow {
  return {
    async claim(claims) {
      const claimed = await Promise.all(claims.map((c) => kv.setIfAbsent(kvKeys.dedup(c.projectId, c.eventId), c.position, DEDUP_TTL_MS)));
      const holders = await Promise.all(claims.map((c, i) => (claimed[i] ? null : kv.get(kvKeys.dedup(c.projectId, c.eventId)))));
      return claims.map((c, i) => claimed[i]! || holders[i] === c.position);
    },
  };
}

/**
 * The one-process default (no Redis): the latest `capacity` event ids in memory. Keeping six
 * hours of them, as the KV window does, grew without bound under load (a million keys a minute at
 * 18,000 events/s; issue 14). A repeat older than the window is still stored once (the store's
 * key on project and event id) and, when among the session's latest 64 events, counted once.
 */
export function localDedupWindow(capacity = 200_000): DedupWindow {
  const seen = new LruCache<string, string>(capacity);
  return {
    async claim(claims) {
      return claims.map((c) => {
        const holder = seen.get(localKey(c));
        if (holder === undefined) seen.set(localKey(c), c.position);
        return holder === undefined || holder === c.position;
      });
    },
  };
}
