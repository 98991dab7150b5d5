import type { DeliveredMessage } from '@spoor/bus';
import type { JobHandler } from '@spoor/jobs';
import { JobFailure } from '@spoor/jobs';
import type { SessionSummary } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import type { SessionClassifier } from '@spoor/rule-service';

/**
 * Consumes session updates: the newest summary of each session in a batch is classified, per
 * project. A replayed batch finds the verdicts it already wrote and writes nothing again.
 */
export class ClassifierService {
  private malformed = 0;

  constructor(private readonly classifier: SessionClassifier) {}

  /** A batch from `sessions.updated`. */
  handle(batch: DeliveredMessage[]): Promise<void> {
    const summaries: SessionSummary[] = [];
    for (const m of batch) {
      const s = parseSummary(m.value);
      if (s) summaries.push(s);
      else this.malformed++;
    }
    return this.classifyLatest(summaries);
  }

  /** Summaries as the sessionizer wrote them (from the topic, or handed over in this process). */
  async classifyLatest(summaries: SessionSummary[]): Promise<void> {
    const latest = new Map<string, SessionSummary>();
    for (const s of summaries) {
      const key = `${s.project_id}\u0000${s.session_id}`;
      const prev = latest.get(key);
      if (!prev || prev.updated_at <= s.updated_at) latest.set(key, s);
    }
    const byProject = new Map<string, SessionSummary[]>();
    for (const s of latest.values()) {
      const list = byProject.get(s.project_id) ?? [];
      list.push(s);
      byProject.set(s.project_id, list);
    }
    for (const [projectId, sessions] of byProject)
      await this.classifier.classify(projectId, sessions, { force: false, announce: true });
  }

  stats(): Record<string, number> {
    return { ...this.classifier.stats(), malformed: this.malformed };
  }
}

/**
 * POST /v1/trigger/classification: reclassify the named sessions with the project's current
 * rules, writing the verdict even when unchanged.
 */
export function classificationJob(store: Store, classifier: SessionClassifier): JobHandler {
  return async (job, ctx) => {
    const ids = job.request.session_ids;
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))
      throw new JobFailure('session_ids must be a list of strings');
    const wanted = [...new Set(ids as string[])];
    const sessions = await store.sessions.getMany(job.project_id, wanted);
    const found = new Set(sessions.map((s) => s.session_id));
    const outcome = await classifier.classify(job.project_id, sessions, { force: true, announce: true });
    await ctx.progress(sessions.length, wanted.length);
    return {
      classified: sessions.length,
      missing: wanted.filter((id) => !found.has(id)),
      matched: Object.fromEntries(outcome.matched),
    };
  };
}

function parseSummary(value: string): SessionSummary | null {
  try {
    const s = JSON.parse(value) as SessionSummary;
    return typeof s?.session_id === 'string' && typeof s.project_id === 'string' && typeof s.last_event_at === 'number'
      ? s
      : null;
  } catch {
    return null;
  }
}
