import type { Kv } from '@spoor/kv';
import { renderAlert } from '@spoor/notify';
import { kvKeys, RECORD_KINDS, type AlertData, type ProjectRecord } from '@spoor/schemas';
import type { Store, StoredRecord } from '@spoor/store';
import type { ChannelSender } from './channel-sender.js';
import type { WebhookOutbox } from './webhook-outbox.js';

export interface ThresholdDeps {
  store: Store;
  kv: Kv;
  clock: () => number;
  sender: ChannelSender;
  outbox: WebhookOutbox;
  instance: string;
  /** The watcher's period: one worker evaluates each period. */
  everyMs: number;
}

/** Whether a threshold alert holds now, and what to say. */
async function evaluate(
  store: Store,
  projectId: string,
  a: AlertData,
  now: number,
): Promise<{ holds: boolean; line: string; value: number }> {
  const c = a.condition;
  if (c.type === 'tag_count') {
    const n = await store.analytics.countTagged(projectId, c.tag, now - c.window_ms);
    return {
      holds: n > c.threshold,
      value: n,
      line: `${n} sessions tagged ${c.tag} in the last ${minutes(c.window_ms)} (threshold ${c.threshold})`,
    };
  }
  if (c.type === 'action_absent') {
    const seen = (await store.events.listActions(projectId)).find((x) => x.action === c.action)?.last_seen ?? null;
    const since = Math.max(seen ?? 0, a.created_at);
    const quiet = now - since;
    return {
      holds: quiet > c.window_ms,
      value: quiet,
      line:
        seen === null
          ? `${c.action} has never been seen`
          : `${c.action} last seen ${new Date(seen).toISOString()}, ${minutes(quiet)} ago`,
    };
  }
  return { holds: false, value: 0, line: '' };
}

const minutes = (ms: number) => (ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : `${Math.round(ms / 60_000)} min`);

/**
 * Threshold alerts ("more than N sessions tagged X in an hour", "action Y stopped being seen"):
 * one worker per period (a KV claim on the period) evaluates every alert; an alert fires once
 * when it starts to hold, with a threshold.crossed webhook and a message to its channels, and
 * again only after it stopped holding.
 */
export async function watchThresholds(deps: ThresholdDeps): Promise<number> {
  const now = deps.clock();
  if (!(await deps.kv.setIfAbsent(kvKeys.alertsPass(Math.floor(now / deps.everyMs)), deps.instance, deps.everyMs * 4)))
    return 0;
  let fired = 0;
  for (const rec of await deps.store.records.listAll<AlertData>(RECORD_KINDS.alert, 10_000)) {
    if (rec.data.condition.type === 'rule_match') continue;
    const r = await evaluate(deps.store, rec.project_id, rec.data, now);
    if (r.holds === rec.data.firing) continue;
    if (r.holds) {
      const project = await deps.store.projects.get(rec.project_id);
      if (project) await fire(deps, project, rec, r.line, r.value, now);
      fired++;
    }
    await deps.store.records.put([
      {
        ...rec,
        data: { ...rec.data, firing: r.holds, last_fired_at: r.holds ? now : rec.data.last_fired_at },
        updated_at: Math.max(now, rec.updated_at + 1),
      },
    ]);
  }
  return fired;
}

async function fire(
  deps: ThresholdDeps,
  project: ProjectRecord,
  rec: StoredRecord<AlertData>,
  line: string,
  value: number,
  now: number,
): Promise<void> {
  await deps.outbox.emitMany(project, 'threshold.crossed', [
    {
      key: `${rec.id}\n${now}`,
      data: {
        alert_id: rec.id,
        name: rec.data.name,
        condition: rec.data.condition,
        value,
        message: line,
        crossed_at: now,
      },
    },
  ]);
  await deps.sender.send(
    project,
    rec.data.channels,
    renderAlert({ title: rec.data.name, lines: [line], origin: project.origin, project: project.project, at: now }),
  );
}
