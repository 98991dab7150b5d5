// One change of a project's members at a time, across every gateway (issue 45; docs/security.md,
// Roles): ClickHouse has no transactions, so a change reads the owners and then writes
// (clickhouse/member-repository.ts), and two owners leaving or demoting each other in the same
// instant could both pass and leave no owner. The change holds a KV key of the project while it
// reads and writes; DuckDB's transaction made it safe already, and the memory KV costs nothing.
import { randomUUID } from 'node:crypto';
import type { Kv } from '@spoor/kv';
import { kvKeys, kvTtlMs } from '@spoor/schemas';

const RETRY_MS = 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `fn` holding the project's member lock. A holder that died lets go when the key expires
 * (kvTtlMs.memberLock), so a wait is bounded by it; a change takes milliseconds.
 */
export async function withMemberLock<T>(kv: Kv, projectId: string, fn: () => Promise<T>): Promise<T> {
  const key = kvKeys.memberLock(projectId);
  const mine = randomUUID();
  while (!(await kv.setIfAbsent(key, mine, kvTtlMs.memberLock))) await sleep(RETRY_MS);
  try {
    return await fn();
  } finally {
    // Not a lock that expired and was taken by another change meanwhile.
    if ((await kv.get(key)) === mine) await kv.del(key);
  }
}
