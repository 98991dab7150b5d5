import type { Kv } from '@spoor/kv';
import type { Bus } from '@spoor/bus';
import { buildHealthReport, buildVersion } from '@spoor/runtime';
import { kvKeys, RECORD_KINDS } from '@spoor/schemas';
import type { Store } from '@spoor/store';

/**
 * One health snapshot per interval (DESIGN.md, Health: every minute), taken by one worker: the
 * interval's slot is claimed in the KV. Stored as a record of kind `health`, keyed by the slot,
 * so even a second writer would replace rather than add; the hourly retention pass drops those
 * older than 7 days (record-retention.ts).
 */
export async function takeHealthSnapshot(deps: {
  store: Store;
  kv: Kv;
  bus: Bus;
  clock: () => number;
  instance: string;
  everyMs: number;
}): Promise<boolean> {
  const now = deps.clock();
  const slot = Math.floor(now / deps.everyMs);
  if (!(await deps.kv.setIfAbsent(kvKeys.healthSnapshot(slot), deps.instance, deps.everyMs * 4))) return false;
  const report = await buildHealthReport({
    store: deps.store,
    bus: deps.bus,
    clock: deps.clock,
    version: buildVersion(),
  });
  await deps.store.records.put([
    {
      kind: RECORD_KINDS.health,
      project_id: '',
      id: String(slot * deps.everyMs),
      parent_id: '',
      sort_key: report.checked_at,
      data: report,
      updated_at: now,
      deleted: false,
    },
  ]);
  return true;
}
