import type { Bus, DeliveredMessage, Subscription } from '@spoor/bus';
import type { Logger } from '@spoor/service-log';
import { renderAlert } from '@spoor/notify';
import type { RuleMatch } from '@spoor/schemas';
import { RECORD_KINDS, type AlertData, type ProjectRecord } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import type { ChannelSender } from './channel-sender.js';
import type { WebhookOutbox } from './webhook-outbox.js';

export interface RuleMatchDeps {
  bus: Bus;
  topic: string;
  group: string;
  store: Store;
  clock: () => number;
  outbox: WebhookOutbox;
  sender: ChannelSender;
  logger: Logger;
}

/** Sessions an alert message lists by id at most; the count says the rest. */
const LISTED = 10;

/**
 * Consumes the classifier's rules.matched announcements: every match becomes a rule.matched
 * webhook (one delivery per endpoint, its id derived from the match, so a redelivered batch
 * sends nothing twice), and `rule_match` alerts send one message per rule and batch.
 */
export async function startRuleMatchConsumer(deps: RuleMatchDeps): Promise<Subscription> {
  return deps.bus.subscribe({
    topic: deps.topic,
    group: deps.group,
    maxBatch: 500,
    handler: (batch) => handle(deps, batch),
  });
}

async function handle(deps: RuleMatchDeps, batch: DeliveredMessage[]): Promise<void> {
  const byProject = new Map<string, RuleMatch[]>();
  for (const m of batch) {
    let match: RuleMatch;
    try {
      match = JSON.parse(m.value) as RuleMatch;
    } catch {
      deps.logger.warn('skipping a malformed rule match', { offset: m.offset });
      continue;
    }
    const list = byProject.get(match.project_id) ?? [];
    list.push(match);
    byProject.set(match.project_id, list);
  }
  for (const [projectId, matches] of byProject) {
    const project = await deps.store.projects.get(projectId);
    if (!project) continue;
    await deps.outbox.emitMany(
      project,
      'rule.matched',
      matches.map((m) => ({
        key: `${m.session_id}\n${m.rule_id}\n${m.matched_at}`,
        data: {
          session_id: m.session_id,
          rule_id: m.rule_id,
          label: m.label,
          tags: m.tags,
          matched_at: m.matched_at,
          session_last_event_at: m.session_last_event_at,
        },
      })),
    );
    await alertOnMatches(deps, project, matches);
  }
}

async function alertOnMatches(deps: RuleMatchDeps, project: ProjectRecord, matches: RuleMatch[]): Promise<void> {
  const alerts = (
    await deps.store.records.list<AlertData>(RECORD_KINDS.alert, project.project_id, { limit: 1000 })
  ).filter((a) => a.data.condition.type === 'rule_match');
  for (const a of alerts) {
    const cond = a.data.condition as { rule_id: string };
    const hits = matches.filter((m) => m.rule_id === cond.rule_id);
    if (hits.length === 0) continue;
    const now = deps.clock();
    const ids = hits.slice(0, LISTED).map((m) => `Session ${m.session_id}`);
    const more = hits.length > LISTED ? [`…and ${hits.length - LISTED} more`] : [];
    const msg = renderAlert({
      title: `${a.data.name}: rule ${cond.rule_id} matched ${hits.length} session${hits.length === 1 ? '' : 's'}`,
      lines: [...ids, ...more],
      origin: project.origin,
      project: project.project,
      at: now,
    });
    await deps.sender.send(project, a.data.channels, msg);
    await deps.store.records.put([
      { ...a, data: { ...a.data, last_fired_at: now }, updated_at: Math.max(now, a.updated_at + 1) },
    ]);
  }
}
