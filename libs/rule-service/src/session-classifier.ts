import type { Bus } from '@spoor/bus';
import type { Kv } from '@spoor/kv';
import type { RuleMatch, RuleTag, SessionClassification, SessionSummary, SessionTag } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { rawFieldsReadableFrom, RulesCache } from '@spoor/rules';

export interface SessionClassifierDeps {
  store: Store;
  kv: Kv;
  clock: () => number;
  /** Where newly matched rules are announced (notifications, webhooks); absent: not announced. */
  matches?: { bus: Bus; topic: string };
}

export interface ClassifyOptions {
  /** Write the verdict even when it did not change (a commanded reclassification). */
  force: boolean;
  /** Announce rules that newly matched. */
  announce: boolean;
}

export interface ClassifyOutcome {
  /** Sessions whose verdict was written. */
  written: number;
  /** rule_ids matched, per session. */
  matched: Map<string, string[]>;
}

const pairKey = (t: RuleTag) => `${t.rule_id}\u0000${t.tag}`;

function sameVerdict(a: SessionClassification, b: { rule_ids: string[]; labels: string[]; tags: RuleTag[] }): boolean {
  return (
    a.rule_ids.join('\u0000') === b.rule_ids.join('\u0000') &&
    a.labels.join('\u0000') === b.labels.join('\u0000') &&
    a.tags.map(pairKey).join('\u0001') === b.tags.map(pairKey).join('\u0001')
  );
}

/**
 * Runs a project's enabled classification rules on session summaries (DESIGN.md, Rules) and
 * stores the result: the verdict per session, the rules' tags (applied at the session's
 * last_event_at when the rule starts matching, taken back when it stops), and an announcement
 * per newly matched rule. Writes only what changed, so the stream of session updates — one per
 * sessionizer write — costs a read per batch, not a write per event.
 */
export class SessionClassifier {
  readonly rules: RulesCache;
  private readonly counters = { classified: 0, written: 0, announced: 0, tagChanges: 0 };

  constructor(private readonly deps: SessionClassifierDeps) {
    // Attribute rules reading raw fields wait for the domain's verification (issue 42).
    this.rules = new RulesCache(deps.store.rules, deps.kv, {
      clock: deps.clock,
      rawFieldsReadable: rawFieldsReadableFrom(deps.store.projects),
    });
  }

  stats(): Record<string, number> {
    return { ...this.counters };
  }

  async classify(projectId: string, sessions: SessionSummary[], opts: ClassifyOptions): Promise<ClassifyOutcome> {
    const matched = new Map<string, string[]>();
    if (sessions.length === 0) return { written: 0, matched };
    const compiled = (await this.rules.forProjects([projectId])).get(projectId)!;
    const previous = new Map(
      (
        await this.deps.store.classifications.getMany(
          projectId,
          sessions.map((s) => s.session_id),
        )
      ).map((c) => [c.session_id, c]),
    );
    const now = this.deps.clock();
    const verdicts: SessionClassification[] = [];
    const tagFacts: SessionTag[] = [];
    const announcements: RuleMatch[] = [];
    for (const s of sessions) {
      this.counters.classified++;
      const prev = previous.get(s.session_id);
      const verdict = compiled.set.classify(s as unknown as Record<string, unknown>);
      matched.set(s.session_id, verdict.rule_ids);
      if (prev && !opts.force && sameVerdict(prev, verdict)) continue;
      verdicts.push({
        project_id: projectId,
        session_id: s.session_id,
        ...verdict,
        classified_at: now,
        session_last_event_at: s.last_event_at,
      });
      const before = new Set((prev?.tags ?? []).map(pairKey));
      const after = new Set(verdict.tags.map(pairKey));
      for (const t of verdict.tags) {
        if (!before.has(pairKey(t)) || opts.force)
          tagFacts.push({
            project_id: projectId,
            session_id: s.session_id,
            tag: t.tag,
            source: t.rule_id,
            tagged_at: s.last_event_at,
            removed: false,
            changed_at: now,
          });
      }
      for (const t of prev?.tags ?? []) {
        if (!after.has(pairKey(t)))
          tagFacts.push({
            project_id: projectId,
            session_id: s.session_id,
            tag: t.tag,
            source: t.rule_id,
            tagged_at: prev!.session_last_event_at,
            removed: true,
            changed_at: now,
          });
      }
      if (opts.announce) {
        const had = new Set(prev?.rule_ids ?? []);
        for (const ruleId of verdict.rule_ids) {
          if (had.has(ruleId)) continue;
          const rule = compiled.set.rule(ruleId);
          announcements.push({
            project_id: projectId,
            session_id: s.session_id,
            rule_id: ruleId,
            label: rule?.label ?? null,
            tags: rule?.tags ?? [],
            matched_at: now,
            session_last_event_at: s.last_event_at,
          });
        }
      }
    }
    // Tags before verdicts: a crash in between re-derives the same tags from the old verdict.
    if (tagFacts.length) await this.deps.store.tags.add(tagFacts);
    if (verdicts.length) await this.deps.store.classifications.put(verdicts);
    if (announcements.length && this.deps.matches) {
      await this.deps.matches.bus.publish(
        this.deps.matches.topic,
        announcements.map((a) => ({ key: a.session_id, value: JSON.stringify(a) })),
      );
    }
    this.counters.written += verdicts.length;
    this.counters.tagChanges += tagFacts.length;
    this.counters.announced += announcements.length;
    return { written: verdicts.length, matched };
  }
}
