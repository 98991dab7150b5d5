import type { Logger } from '@spoor/service-log';
import { kvKeys, kvTtlMs } from '@spoor/schemas';
import type { Kv } from '@spoor/kv';
import type { Store } from '@spoor/store';
import { rawCopiesGoneBy } from './raw-copies.js';
import { recountStoredResults } from './stored-results.js';

const DAY_MS = 86_400_000;

export interface DataRetentionDeps {
  store: Store;
  kv: Kv;
  /** Passed in, so tests move time forward without touching globals. */
  clock: () => number;
  instance: string;
  logger: Logger;
  /** SPOOR_BUS_RETENTION_HOURS, in ms: for the log line's `raw_copies_gone_by`. */
  busRetentionMs: number;
}

/**
 * Once a UTC day, by one worker (the first tick after midnight claims the day): deletes each
 * project's events with timestamp, and sessions with last_event_at, older than now −
 * retention_days (issue 17, docs/data.md), and its audit trail's entries made before that (issue
 * 45, item 7; docs/security.md, Audit trail), then recounts the stored overviews and transition
 * matrices whose window held what went (stored-results.ts). Daily, because a ClickHouse delete is a mutation and
 * a day is the setting's unit. A project that fails does not stop the others; the pass then
 * throws, so the worker logs it, and the next day's pass deletes what this one left.
 */
export async function expireProjectData(deps: DataRetentionDeps): Promise<boolean> {
  const now = deps.clock();
  if (
    !(await deps.kv.setIfAbsent(
      kvKeys.dataRetentionPass(Math.floor(now / DAY_MS)),
      deps.instance,
      kvTtlMs.dataRetentionPass,
    ))
  )
    return false;
  const failed: unknown[] = [];
  for (const project of await deps.store.projects.listWithRetention()) {
    if (project.retention_days === null || project.retention_days === undefined) continue;
    try {
      const cut = now - project.retention_days * DAY_MS;
      await deps.store.audit.expire(project.project_id, cut);
      const expired = await deps.store.expiry.expire(project.project_id, cut);
      // Stored overviews and matrices that counted the expired events are counted again (issue 43).
      const recounted = expired.window
        ? await recountStoredResults(deps.store, project, expired.window, deps.clock)
        : { overviews: 0, transitions: 0 };
      deps.logger.info('retention pass', {
        project_id: project.project_id,
        retention_days: project.retention_days,
        overviews_rebuilt: recounted.overviews,
        transitions_rebuilt: recounted.transitions,
        // The expired rows' raw events may still be on the bus until then (issue 43).
        raw_copies_gone_by: new Date(rawCopiesGoneBy(deps)).toISOString(),
      });
    } catch (err) {
      failed.push(err);
    }
  }
  if (failed.length > 0) throw new AggregateError(failed, `retention pass failed for ${failed.length} project(s)`);
  return true;
}
