import type { JobDispatcher } from '@spoor/jobs';
import type { Kv } from '@spoor/kv';
import { kvKeys, RECORD_KINDS, type ScheduleData } from '@spoor/schemas';
import type { Store, StoredRecord } from '@spoor/store';

export interface ScheduleRunnerDeps {
  store: Store;
  kv: Kv;
  clock: () => number;
  dispatcher: JobDispatcher;
  instance: string;
}

/** The run a due schedule makes now: the latest boundary passed, so runs missed in downtime collapse into one. */
export function dueRun(s: ScheduleData, now: number): number | null {
  if (!s.enabled || s.next_run_at > now) return null;
  return s.next_run_at + Math.floor((now - s.next_run_at) / s.interval_ms) * s.interval_ms;
}

/**
 * One pass over every schedule (DESIGN.md, Jobs): a due run is claimed in the KV under
 * (schedule, run time), so with several workers exactly one dispatches it; the winner then
 * moves the schedule on. Each run covers the interval that ended at its run time.
 */
export async function runDueSchedules(deps: ScheduleRunnerDeps): Promise<number> {
  const now = deps.clock();
  let dispatched = 0;
  for (const rec of await deps.store.records.listAll<ScheduleData>(RECORD_KINDS.schedule, 10_000)) {
    const runAt = dueRun(rec.data, now);
    if (runAt === null) continue;
    const ttl = Math.min(Math.max(2 * rec.data.interval_ms, 3_600_000), 7 * 24 * 3_600_000);
    if (!(await deps.kv.setIfAbsent(kvKeys.scheduleRun(rec.id, runAt), deps.instance, ttl))) continue;
    await runOne(deps, rec, runAt);
    dispatched++;
  }
  return dispatched;
}

async function runOne(deps: ScheduleRunnerDeps, rec: StoredRecord<ScheduleData>, runAt: number): Promise<void> {
  const s = rec.data;
  const request: Record<string, unknown> = {
    window_start: runAt - s.interval_ms,
    window_end: runAt,
    schedule_id: s.schedule_id,
  };
  if (s.kind === 'notification')
    Object.assign(request, { kind: 'digest', ...(s.channels ? { channels: s.channels } : {}) });
  const job = await deps.dispatcher.dispatch(s.account_id, rec.project_id, s.kind, request);
  const latest = (await deps.store.records.get<ScheduleData>(RECORD_KINDS.schedule, rec.project_id, rec.id)) ?? rec;
  const now = deps.clock();
  const data: ScheduleData = {
    ...latest.data,
    next_run_at: runAt + s.interval_ms,
    last_run_at: runAt,
    last_job_id: job.job_id,
  };
  await deps.store.records.put([{ ...latest, data, updated_at: Math.max(now, latest.updated_at + 1) }]);
}
