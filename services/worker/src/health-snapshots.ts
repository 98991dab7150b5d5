import type { Kv } from '@spoor/kv';
import type { Bus } from '@spoor/bus';
import { buildHealthReport, buildVersion } from '@spoor/runtime';
import { RECORD_KINDS } from '@spoor/schemas';
import type { Store } from '@spoor/store';

/** How long /v1/status/health/history keeps snapshots. */
export const HEALTH_RETENTION_MS = 7 * 24 * 3_600_000;

/**
 * One health snapshot per interval (DESIGN.md, Health: every minute), taken by one worker: the
 * interval's slot is claimed in the KV. Stored as a record of kind `health`, keyed by the slot,
 * so even a second writer would replace rather than add; older than 7 days is dropped hourly.
 */
export async function takeHealthSnapshot(deps: { store: Store; kv: Kv; bus: Bus; clock: () => number; instance: string; everyMs: number }): Promise<boolean> {
  const now = deps.clock();
  const slot = Math.floor(now / deps.everyMs);
  if (!(await deps.kv.setIfAbsent(`health:snapshot:${slot}`, deps.instance, deps.everyMs * 4))) return false;
  const report = await buildHealthReport({ store: deps.store, bus: deps.bus, clock: deps.clock, version: buildVersion() });
  await deps.store.records.put([{ kind: RECORD_KINDS.health, project_id: '', id: String(slot * deps.everyMs), parent_id: '', sort_key: report.checked_at, data: report, updated_at: now, deleted: false }]);
  // Retention once an hour: a ClickHouse delete is a mutation, too heavy for every minute.
  if (slot % Math.max(1, Math.round(3_600_000 / deps.everyMs)) === 0) await deps.store.records.purge(RECORD_KINDS.health, now - HEALTH_RETENTION_MS);
  return true;
}
