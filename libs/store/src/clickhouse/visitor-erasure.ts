// One person's erasure in ClickHouse mode (POST /v1/erasures, docs/data.md): lightweight
// DELETEs, as a project's deletion does (a mutation for sessions: deleteSessions). The rows leave
// every read at once; their bytes stay in the parts until a merge rewrites them.
//
// The person's event ids are never sent as a parameter (thousands of ids would not fit the
// request's URL): each DELETE names them by a subquery on enriched_events, which is why
// enriched_events goes last — until then it still says whose rows they are, so a job taken over
// after a crash finds everything again.
import type { VisitorErasure, VisitorSelector } from '../data-ownership.js';
import { toInt, toStr } from '../column-values.js';
import { hoursWhere, markHours } from './rollups.js';
import type { ClickHouseConnection, Params } from './clickhouse-connection.js';
import { deleteSessions } from './session-repository.js';

/** The selector as a predicate on an events table, over the parameter `v`. */
function matchOf(selector: VisitorSelector): { sql: string; v: unknown } {
  if ('session_id' in selector) return { sql: 'session_id = {v:String}', v: selector.session_id };
  if ('visitor_id' in selector)
    return { sql: `lower(hex(SHA256(concat(ip, '\\n', user_agent)))) = {v:String}`, v: selector.visitor_id };
  return { sql: 'ip IN {v:Array(String)}', v: selector.ips };
}

export async function eraseVisitorClickHouse(
  ch: ClickHouseConnection,
  projectId: string,
  selector: VisitorSelector,
): Promise<VisitorErasure> {
  const enriched = ch.table('enriched_events');
  const m = matchOf(selector);
  const params: Params = { p: projectId, v: m.v };
  const found = await sessionsOf(ch, selector, params, m.sql);
  // The named session's tag facts and classification go even without a summary or events.
  const sessionIds = 'session_id' in selector ? [...new Set([...found, selector.session_id])] : found;
  params.s = sessionIds;
  const erased = `project_id = {p:String} AND (session_id IN {s:Array(String)} OR ${m.sql})`;
  const [span] = await ch.rows(
    `SELECT count() AS n, min(timestamp) AS lo, max(timestamp) AS hi FROM ${enriched} FINAL WHERE ${erased}`,
    params,
  );
  const actions = (await ch.rows(`SELECT DISTINCT action FROM ${enriched} WHERE ${erased}`, params)).map((r) =>
    toStr(r.action),
  );
  const ids = `event_id IN (SELECT event_id FROM ${enriched} WHERE ${erased})`;
  const hours = await hoursWhere(ch, erased, params);
  if (sessionIds.length > 0) {
    await deleteSessions(ch, 'project_id = {p:String} AND session_id IN {s:Array(String)}', params);
  }
  for (const table of ['session_tag_facts', 'session_classifications']) {
    await ch.command(
      `DELETE FROM ${ch.table(table)} WHERE project_id = {p:String} AND session_id IN {s:Array(String)}`,
      params,
    );
  }
  await ch.command(
    `DELETE FROM ${ch.table('enriched_events_by_session')} WHERE project_id = {p:String} AND (session_id IN {s:Array(String)} OR ${ids})`,
    params,
  );
  // Raw rows of derived sessions carry no session id: their enriched twins name them.
  await ch.command(
    `DELETE FROM ${ch.table('raw_events')} WHERE project_id = {p:String} AND (session_id IN {s:Array(String)} OR ${m.sql} OR ${ids})`,
    params,
  );
  await ch.command(`DELETE FROM ${enriched} WHERE ${erased}`, params);
  // Marked after the DELETE, so a refresh that sees the marks reads the events without them.
  await markHours(ch, projectId, hours);
  await recomputeActions(ch, projectId, actions);
  const events = toInt(span?.n ?? 0);
  const window = events === 0 ? null : { start: toInt(span!.lo), end: toInt(span!.hi) + 1 };
  return { session_ids: found, events, window };
}

/**
 * The sessions of the person: those their events belong to, and the named one when it has a
 * summary or events (issue 43: a session id that never existed is no session erased).
 */
async function sessionsOf(
  ch: ClickHouseConnection,
  selector: VisitorSelector,
  params: Params,
  match: string,
): Promise<string[]> {
  if ('session_id' in selector) {
    const named = await ch.rows(
      `SELECT count() AS n FROM ${ch.table('sessions')} WHERE project_id = {p:String} AND session_id = {v:String}
       UNION ALL
       SELECT count() AS n FROM ${ch.table('enriched_events')} WHERE project_id = {p:String} AND ${match}
       UNION ALL
       SELECT count() AS n FROM ${ch.table('raw_events')} WHERE project_id = {p:String} AND ${match}`,
      params,
    );
    return named.some((r) => toInt(r.n) > 0) ? [selector.session_id] : [];
  }
  const rows = await ch.rows(
    `SELECT DISTINCT session_id FROM ${ch.table('enriched_events')} WHERE project_id = {p:String} AND ${match}
     UNION DISTINCT
     SELECT DISTINCT assumeNotNull(session_id) FROM ${ch.table('raw_events')} WHERE project_id = {p:String} AND ${match} AND session_id IS NOT NULL`,
    params,
  );
  return rows.map((r) => toStr(r.session_id)).sort();
}

/**
 * An action's last-seen time may have been the erased person's: it becomes the latest of the
 * events left (humans only, as the sessionizer counts them), or goes when none is left. A
 * DELETE first: ReplacingMergeTree(last_seen) would keep the erased, greater time.
 */
async function recomputeActions(ch: ClickHouseConnection, projectId: string, actions: string[]): Promise<void> {
  if (actions.length === 0) return;
  const params = { p: projectId, a: actions };
  await ch.command(
    `DELETE FROM ${ch.table('actions')} WHERE project_id = {p:String} AND action IN {a:Array(String)}`,
    params,
  );
  await ch.command(
    `INSERT INTO ${ch.table('actions')} (project_id, action, last_seen)
     SELECT project_id, action, toUInt64(max(timestamp)) FROM ${ch.table('enriched_events')}
     WHERE project_id = {p:String} AND action IN {a:Array(String)} AND NOT bot
     GROUP BY project_id, action`,
    params,
  );
}
