import type { Kv } from '@spoor/kv';
import { kvKeys, kvTtlMs } from '@spoor/schemas';

/** One event's claim: its project and event id, and the bus position of the message carrying it. */
export interface DedupClaim {
  projectId: string;
  eventId: string;
  position: string;
}

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
      const claimed = await Promise.all(
        claims.map((c) => kv.setIfAbsent(kvKeys.dedup(c.projectId, c.eventId), c.position, DEDUP_TTL_MS)),
      );
      const holders = await Promise.all(
        claims.map((c, i) => (claimed[i] ? null : kv.get(kvKeys.dedup(c.projectId, c.eventId)))),
      );
      return claims.map((c, i) => claimed[i]! || holders[i] === c.position);
    },
  };
}

/**
 * The one-process default (no Redis): the latest `capacity` event ids in memory, oldest out
 * first. Keeping six hours of them, as the KV window does, grew without bound under load (a
 * million keys a minute at 18,000 events/s; issue 14). A repeat older than the window is still
 * stored once (the store's key on project and event id) and, when among the session's latest 64
 * events, counted once.
 *
 * Compact by design: a map per project from the event id (the string the message's parse made)
 * to a 31-bit hash of the claiming position. Keys of `${project}:${id}` with the position as
 * text held 9 strings per entry, 65 MiB for the default 200,000 (a heap snapshot under load, issue
 * 14); this holds about 90 bytes per entry. Two positions sharing a hash could let a client's
 * retry through as a redelivery, 1 in 2^31: the store's key still stores it once.
 */
export function localDedupWindow(capacity = 200_000): DedupWindow {
  if (!Number.isInteger(capacity) || capacity < 1)
    throw new RangeError(`dedup capacity must be a positive integer, got ${capacity}`);
  const byProject = new Map<string, Map<string, number>>();
  // Insertion order, as a ring: which project's map holds the id in each slot.
  const slotMaps: Array<Map<string, number> | undefined> = new Array(capacity);
  const slotIds: Array<string | undefined> = new Array(capacity);
  let next = 0;
  const remember = (ids: Map<string, number>, eventId: string, hash: number) => {
    const oldMap = slotMaps[next];
    if (oldMap) oldMap.delete(slotIds[next]!);
    ids.set(eventId, hash);
    slotMaps[next] = ids;
    slotIds[next] = eventId;
    next = (next + 1) % capacity;
  };
  return {
    async claim(claims) {
      return claims.map((c) => {
        let ids = byProject.get(c.projectId);
        if (!ids) byProject.set(c.projectId, (ids = new Map()));
        const hash = positionHash(c.position);
        const holder = ids.get(c.eventId);
        if (holder === undefined) remember(ids, c.eventId, hash);
        return holder === undefined || holder === hash;
      });
    },
  };
}

/** FNV-1a over the position's UTF-16 code units, as a non-negative small integer. */
function positionHash(position: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < position.length; i++) h = Math.imul(h ^ position.charCodeAt(i), 0x01000193);
  return h >>> 1;
}
