// GET /v1/sessions on ClickHouse (issue 15, target 3): the newest sessions of a project, read from
// the projections of `sessions` (migrations.ts, step 9) instead of every summary of the project
// under FINAL. The answer is the one FINAL gives: each session once, with its latest version,
// when that version's last_event_at is in the window; newest first, ties by session_id.
//
// The projections hold every version not yet merged away, so each read keeps a session's latest
// version itself. That relies on what the sessionizer and the backfill write: from one version of
// a session to the next (greater updated_at), last_event_at and event_count never decrease and
// first_event_at never increases (data-expiry.ts relies on the first as well). So a session's
// latest version is its version with the greatest last_event_at, and a session none of whose
// versions reach back to a slice's lower bound has its latest version below it.
//
// EXPLAIN ESTIMATE does not count what a LIMIT saves, and neither does a plan that is not read in
// order, so every read here is bounded by its key range: the hour counts say where the newest n
// sessions begin (rows per hour over-count sessions by the versions not yet merged), the page
// reads from there, and reaches further back only when the slice held fewer sessions than that.
import type { SessionListItem } from '@spoor/schemas';
import { MAX_MS, toInt, toStr } from '../column-values.js';
import { rowToSessionListItem } from '../session-row.js';
import type { ClickHouseConnection } from './clickhouse-connection.js';

const HOUR_MS = 3_600_000;
/** Session ids per query of dropSuperseded (a page's most): sent in the URL, as every query parameter is. */
const IDS_PER_QUERY = 1000;

/** The first ms of ClickHouse's bucket intDiv(t, HOUR_MS), which truncates toward zero. */
const hourStart = (hour: number) => (hour > 0 ? hour * HOUR_MS : (hour - 1) * HOUR_MS + 1);

export async function newestSessions(
  ch: ClickHouseConnection,
  projectId: string,
  window: { start: number; end: number },
  limit: number,
): Promise<SessionListItem[]> {
  const { start, end } = window;
  if (start >= end || limit === 0) return [];
  const hours = await hourCounts(ch, projectId, start, end);
  // An hour cut by the window's end also counts the rows past it: it counts for nothing here, lest
  // the first slice come short by them and a second one be read.
  if (hours.length > 0 && end < hourStart(hours[0]!.hour + 1)) hours[0]!.rows = 0;
  const page: SessionListItem[] = [];
  const seen = new Set<string>();
  let hi = end;
  let want = limit;
  let counted = 0;
  let next = 0;
  for (;;) {
    let lo = start;
    while (next < hours.length) {
      const h = hours[next++]!;
      counted += h.rows;
      if (counted >= want) {
        lo = Math.max(start, hourStart(h.hour));
        break;
      }
    }
    // A session seen in a newer slice has its latest version there: its rows here are older.
    const slice = (await latestIn(ch, projectId, lo, hi)).filter((s) => !seen.has(s.session_id));
    for (const s of slice) seen.add(s.session_id);
    page.push(...(await dropSuperseded(ch, projectId, end, slice, limit - page.length)));
    if (page.length >= limit || lo <= start) return page.slice(0, limit);
    hi = lo;
    want *= 2;
  }
}

/**
 * The page as far as it lies at or after `from` (a cut where a previous read of this page ended,
 * page-cuts.ts): one slice, no hour counts. Fewer than `limit` sessions means the caller reads
 * the page whole with newestSessions.
 */
export async function newestSessionsFrom(
  ch: ClickHouseConnection,
  projectId: string,
  window: { start: number; end: number },
  limit: number,
  from: number,
): Promise<SessionListItem[]> {
  const lo = Math.max(window.start, from);
  if (lo >= window.end || limit === 0) return [];
  return dropSuperseded(ch, projectId, window.end, await latestIn(ch, projectId, lo, window.end), limit);
}

/** Versions per hour of last_event_at, newest hour first, over the hours the window touches. */
async function hourCounts(
  ch: ClickHouseConnection,
  projectId: string,
  start: number,
  end: number,
): Promise<Array<{ hour: number; rows: number }>> {
  const rows = await ch.rows(
    `SELECT intDiv(last_event_at, 3600000) AS hour, count() AS rows FROM ${ch.table('sessions')}
     WHERE project_id = {p:String}
       AND intDiv(last_event_at, 3600000) BETWEEN intDiv({start:Int64}, 3600000) AND intDiv({last:Int64}, 3600000)
     GROUP BY hour ORDER BY hour DESC`,
    { p: projectId, start, last: end - 1 },
  );
  return rows.map((r) => ({ hour: toInt(r.hour), rows: toInt(r.rows) }));
}

/**
 * Each session with a version in [lo, hi) once, by its latest version there (greatest
 * last_event_at, then updated_at; a tie on both, which FINAL settles by insert order, by the
 * version further along: more events, earlier start). Newest first, ties by session_id.
 */
async function latestIn(ch: ClickHouseConnection, projectId: string, lo: number, hi: number) {
  const rows = await ch.rows(
    `SELECT session_id, first_event_at, last_event_at, event_count FROM (
       SELECT session_id, first_event_at, last_event_at, event_count FROM ${ch.table('sessions')}
       WHERE project_id = {p:String} AND last_event_at >= {lo:Int64} AND last_event_at < {hi:Int64}
       ORDER BY last_event_at DESC, updated_at DESC, event_count DESC, first_event_at LIMIT 1 BY session_id)
     ORDER BY last_event_at DESC, session_id`,
    { p: projectId, lo, hi },
  );
  return rows.map(rowToSessionListItem);
}

/**
 * Without a window_end every candidate stands. With one, a candidate may be an older version of a
 * session whose latest version is past the window's end (not merged away yet): such a session is
 * left out, as FINAL leaves it out. Only the `room` first candidates that stand are needed; the
 * engine answers by the table's key (the ids) or by the projection's (last_event_at ≥ end),
 * whichever reads less (GROUP BY, not DISTINCT: DISTINCT reads the table in its key order, which
 * rules the projection out).
 */
async function dropSuperseded(
  ch: ClickHouseConnection,
  projectId: string,
  end: number,
  candidates: SessionListItem[],
  room: number,
): Promise<SessionListItem[]> {
  if (end >= MAX_MS) return candidates.slice(0, room);
  const kept: SessionListItem[] = [];
  for (let i = 0; i < candidates.length && kept.length < room;) {
    const chunk = candidates.slice(i, i + Math.min(IDS_PER_QUERY, room - kept.length));
    i += chunk.length;
    const later = await ch.rows(
      `SELECT session_id FROM ${ch.table('sessions')}
       WHERE project_id = {p:String} AND session_id IN {ids:Array(String)} AND last_event_at >= {end:Int64}
       GROUP BY session_id`,
      { p: projectId, ids: chunk.map((s) => s.session_id), end },
    );
    const superseded = new Set(later.map((r) => toStr(r.session_id)));
    kept.push(...chunk.filter((s) => !superseded.has(s.session_id)));
  }
  return kept;
}
