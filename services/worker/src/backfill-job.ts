import type { SessionClassifier } from '@spoor/rule-service';
import type { JobHandler } from '@spoor/jobs';
import type { Kv } from '@spoor/kv';
import { openSessionKey, type EnrichedEvent, type SessionState } from '@spoor/schemas';
import type { Store } from '@spoor/store';

export interface BackfillDeps {
  store: Store;
  kv: Kv;
  classifier: SessionClassifier;
  clock: () => number;
  /** Sessions per page: one events query and one classification round per page. */
  pageSize?: number;
}

/**
 * POST /v1/trigger/backfill: every session of the project, in session_id order, through
 * attribute extraction (the enabled attribute rules over its stored events, from an empty map)
 * and classification with the current rules. Sessions whose attributes changed are written
 * again and their open state is dropped from the KV, so the sessionizer reloads the new
 * attributes with the session's next event. Writes are idempotent: a backfill that a crash
 * interrupted runs again from the start on the next worker. Rules that newly match are not
 * announced: history is not news.
 */
export function backfillJob(deps: BackfillDeps): JobHandler {
  const pageSize = deps.pageSize ?? 500;
  return async (job, ctx) => {
    const projectId = job.project_id;
    const total = await deps.store.sessions.count(projectId);
    await ctx.progress(0, total);
    const compiled = (await deps.classifier.rules.forProjects([projectId])).get(projectId)!;
    let cursor: string | null = null;
    let done = 0;
    let attributesChanged = 0;
    let matchedSessions = 0;
    for (;;) {
      ctx.signal.throwIfAborted();
      const page: SessionState[] = await deps.store.sessions.page(projectId, cursor, pageSize);
      if (page.length === 0) break;
      cursor = page[page.length - 1]!.session_id;
      if (compiled.attribute > 0 || hasAttributes(page)) {
        const changed = await extractAttributes(deps, projectId, page, compiled.set);
        attributesChanged += changed;
      }
      const outcome = await deps.classifier.classify(projectId, page, { force: true, announce: false });
      for (const ids of outcome.matched.values()) if (ids.length) matchedSessions++;
      done += page.length;
      await ctx.progress(done, Math.max(total, done));
    }
    return { sessions: done, attributes_changed: attributesChanged, matched_sessions: matchedSessions };
  };
}

const hasAttributes = (page: SessionState[]) => page.some((s) => Object.keys(s.attributes).length > 0);

async function extractAttributes(
  deps: BackfillDeps,
  projectId: string,
  page: SessionState[],
  set: { extract(event: Record<string, unknown>, into: Record<string, unknown>): boolean },
): Promise<number> {
  const events = await deps.store.events.eventsOfSessions(
    projectId,
    page.map((s) => s.session_id),
  );
  const bySession = new Map<string, EnrichedEvent[]>();
  for (const e of events) {
    if (e.bot) continue;
    const list = bySession.get(e.session_id) ?? [];
    list.push(e);
    bySession.set(e.session_id, list);
  }
  const rewritten: SessionState[] = [];
  for (const s of page) {
    const attributes: Record<string, unknown> = {};
    for (const e of bySession.get(s.session_id) ?? []) set.extract(e as unknown as Record<string, unknown>, attributes);
    if (JSON.stringify(attributes) === JSON.stringify(s.attributes)) continue;
    s.attributes = attributes;
    s.updated_at = Math.max(deps.clock(), s.updated_at + 1);
    rewritten.push(s);
  }
  if (rewritten.length) {
    await deps.store.sessions.upsert(rewritten);
    await Promise.all(rewritten.map((s) => deps.kv.del(openSessionKey(s.project_id, s.session_id))));
  }
  return rewritten.length;
}
