import type { Kv } from '@spoor/kv';
import { HEARTBEAT_KIND, HEARTBEAT_RETENTION_MS } from '@spoor/runtime';
import { kvKeys, kvTtlMs, RECORD_KINDS } from '@spoor/schemas';
import type { Store } from '@spoor/store';

/** How long the delivery log keeps a webhook delivery (GET /v1/webhooks/{id}/deliveries). */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3_600_000;

/** How long /v1/status/health/history keeps snapshots. */
export const HEALTH_RETENTION_MS = 7 * 24 * 3_600_000;

/**
 * Once an hour, by one worker: drops deliveries, health snapshots and process heartbeats past
 * their retention so each stays bounded. Hourly, because a ClickHouse delete is a mutation.
 */
export async function purgeExpiredRecords(deps: {
  store: Store;
  kv: Kv;
  clock: () => number;
  instance: string;
}): Promise<boolean> {
  const now = deps.clock();
  if (
    !(await deps.kv.setIfAbsent(
      kvKeys.retentionPass(Math.floor(now / 3_600_000)),
      deps.instance,
      kvTtlMs.retentionPass,
    ))
  )
    return false;
  await deps.store.records.purge(RECORD_KINDS.delivery, now - DELIVERY_RETENTION_MS);
  await deps.store.records.purge(RECORD_KINDS.health, now - HEALTH_RETENTION_MS);
  await deps.store.records.purge(HEARTBEAT_KIND, now - HEARTBEAT_RETENTION_MS);
  return true;
}
