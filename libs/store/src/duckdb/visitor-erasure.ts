// One person's erasure in the embedded mode (POST /v1/erasures, docs/data.md): one transaction,
// so a reader sees the person's rows either all there or all gone. `events` holds the raw and
// the enriched half of an event in one row, so one DELETE takes both.
import { markWhere } from './rollups.js';
import type { VisitorErasure, VisitorSelector } from '../data-ownership.js';
import type { DuckExecutor, Param } from './duckdb-connection.js';

/** The selector as a predicate on `events` over parameter `$n`: the raw half keeps its own IP (raw_ip). */
function matchOf(selector: VisitorSelector, n: number): { sql: string; value: Param } {
  const v = `$${n}`;
  if ('session_id' in selector) return { sql: `session_id = ${v}`, value: selector.session_id };
  if ('visitor_id' in selector)
    return {
      sql: `sha256(coalesce(ip, '') || chr(10) || coalesce(user_agent, '')) = ${v}`,
      value: selector.visitor_id,
    };
  return { sql: `(list_contains(${v}::VARCHAR[], ip) OR list_contains(${v}::VARCHAR[], raw_ip))`, value: selector.ips };
}

/**
 * The sessions of the person: those their events belong to, and the named one when it has a
 * summary (issue 43: a session id that never existed is no session erased).
 */
async function sessionsOf(x: DuckExecutor, projectId: string, selector: VisitorSelector): Promise<string[]> {
  const m = matchOf(selector, 2);
  const rows = await x.all(
    `SELECT DISTINCT session_id FROM events WHERE project_id = $1 AND ${m.sql} AND session_id IS NOT NULL
     UNION SELECT session_id FROM sessions WHERE project_id = $1 AND session_id = $3::VARCHAR`,
    [projectId, m.value, 'session_id' in selector ? selector.session_id : null],
  );
  return [...new Set(rows.map((r) => String(r.session_id)))].sort();
}

/** Runs inside the writer's exclusive hold. */
export async function eraseVisitorDuckDb(
  x: DuckExecutor,
  projectId: string,
  selector: VisitorSelector,
): Promise<VisitorErasure> {
  return x.transaction(async () => {
    const found = await sessionsOf(x, projectId, selector);
    // The named session's tag facts and classification go even without a summary or events.
    const sessionIds = 'session_id' in selector ? [...new Set([...found, selector.session_id])] : found;
    const m = matchOf(selector, 3);
    const erased = `project_id = $1 AND (list_contains($2::VARCHAR[], session_id) OR ${m.sql})`;
    const params: Param[] = [projectId, sessionIds, m.value];
    const [span] = await x.all(
      `SELECT count(*) FILTER (WHERE has_enriched) AS n, min("timestamp") AS lo, max("timestamp") AS hi FROM events WHERE ${erased}`,
      params,
    );
    const actions = (await x.all(`SELECT DISTINCT action FROM events WHERE ${erased}`, params)).map((r) =>
      String(r.action),
    );
    // Their hours' rollups are rebuilt after it, in the same hold of the writer (project-erasure.ts).
    await x.run(markWhere(erased), params);
    // Their keys go too: a repeat of an erased event is stored again, as on ClickHouse.
    await x.run(`DELETE FROM event_keys WHERE event_key IN (SELECT event_key FROM events WHERE ${erased})`, params);
    await x.run(`DELETE FROM events WHERE ${erased}`, params);
    for (const table of ['sessions', 'session_tag_facts', 'session_classifications']) {
      await x.run(`DELETE FROM ${table} WHERE project_id = $1 AND list_contains($2::VARCHAR[], session_id)`, [
        projectId,
        sessionIds,
      ]);
    }
    await recomputeActions(x, projectId, actions);
    const events = Number(span?.n ?? 0);
    const window =
      span?.lo === null || span?.lo === undefined ? null : { start: Number(span.lo), end: Number(span.hi) + 1 };
    return { session_ids: found, events, window };
  });
}

/**
 * An action's last-seen time may have been the erased person's: it becomes the latest of the
 * events left (humans only, as the sessionizer counts them), or goes when none is left.
 */
async function recomputeActions(x: DuckExecutor, projectId: string, actions: string[]): Promise<void> {
  if (actions.length === 0) return;
  await x.run('DELETE FROM actions WHERE project_id = $1 AND list_contains($2::VARCHAR[], action)', [
    projectId,
    actions,
  ]);
  await x.run(
    `INSERT INTO actions (project_id, action, last_seen)
     SELECT project_id, action, max("timestamp") FROM enriched_events
     WHERE project_id = $1 AND list_contains($2::VARCHAR[], action) AND NOT coalesce(bot, false)
     GROUP BY project_id, action`,
    [projectId, actions],
  );
}
