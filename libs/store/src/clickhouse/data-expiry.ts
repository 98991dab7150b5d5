// Retention days in ClickHouse mode (issue 17, docs/data.md): lightweight DELETEs, like a
// project's deletion (a mutation for sessions: deleteSessions). A TTL clause cannot do it: a
// table's TTL is one expression for every row, and retention differs per project and changes at
// run time (a TTL reading another table is not allowed, and an ALTER … MODIFY TTL per change
// would rewrite every part).
import type { DataExpired, DataExpiry } from '../data-ownership.js';
import { toInt } from '../column-values.js';
import type { ClickHouseConnection } from './clickhouse-connection.js';
import { HOUR_MS } from '../rollup-hours.js';
import { ROLLUP_TABLES, markHours, purgeSupersededNow, refreshRollups } from './rollups.js';
import { deleteSessions } from './session-repository.js';

export class ClickHouseDataExpiry implements DataExpiry {
  constructor(private readonly ch: ClickHouseConnection) {}

  async expire(projectId: string, before: number): Promise<DataExpired> {
    const params = { p: projectId, before };
    // min() of no rows is 0 in ClickHouse: minOrNull, and the cut in its place (only an empty pass has it).
    const [oldest] = await this.ch.rows(
      `SELECT least(
         (SELECT ifNull(minOrNull(timestamp), {before:Int64}) FROM ${this.ch.table('enriched_events')} WHERE project_id = {p:String} AND timestamp < {before:Int64}),
         (SELECT ifNull(minOrNull(last_event_at), {before:Int64}) FROM ${this.ch.table('sessions')} WHERE project_id = {p:String} AND last_event_at < {before:Int64})) AS start`,
      params,
    );
    // Every version of an event whose stored version (the one FINAL keeps) is past the cut: a
    // repeat that carried a corrected, later timestamp must not stand in for it once it is gone.
    for (const table of ['raw_events', 'enriched_events']) {
      const t = this.ch.table(table);
      await this.ch.command(
        `DELETE FROM ${t} WHERE project_id = {p:String}
           AND event_id IN (SELECT event_id FROM ${t} FINAL WHERE project_id = {p:String} AND timestamp < {before:Int64})`,
        params,
      );
    }
    await this.ch.command(
      `DELETE FROM ${this.ch.table('enriched_events_by_session')} WHERE project_id = {p:String} AND timestamp < {before:Int64}`,
      params,
    );
    // The rollups of the hours before the cut go; the hour it cuts is rebuilt by the next job.
    for (const table of ROLLUP_TABLES) {
      await this.ch.command(
        `DELETE FROM ${this.ch.table(table)} WHERE project_id = {p:String} AND hour < intDiv({before:Int64}, ${HOUR_MS})`,
        params,
      );
    }
    await markHours(this.ch, projectId, [Math.floor(before / HOUR_MS)]);
    // last_event_at only grows from one version of a session to the next, so a version past the
    // cut is never newer than one inside it: deleting every matching version keeps FINAL right.
    const expired = `SELECT session_id FROM ${this.ch.table('sessions')} FINAL WHERE project_id = {p:String} AND last_event_at < {before:Int64}`;
    for (const table of ['session_tag_facts', 'session_classifications']) {
      await this.ch.command(
        `DELETE FROM ${this.ch.table(table)} WHERE project_id = {p:String} AND session_id IN (${expired})`,
        params,
      );
    }
    await deleteSessions(this.ch, 'project_id = {p:String} AND last_event_at < {before:Int64}', params);
    // The cut hour's rollups at once, without the expired events, and no older generation of it left.
    await refreshRollups(this.ch, projectId);
    await purgeSupersededNow(this.ch, projectId);
    const start = toInt(oldest?.start ?? before);
    return { window: start < before ? { start, end: before } : null };
  }
}
