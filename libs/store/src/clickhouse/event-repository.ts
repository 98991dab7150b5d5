import type { ActionSeen, EnrichedEvent, RawEvent } from '@spoor/schemas';
import type { EventPair, EventRepository, ListQuery } from '../store.js';
import { checkLimit, MAX_MS, MIN_MS, toInt, toStr } from '../column-values.js';
import {
  ENRICHED_EVENT_COLUMNS,
  RAW_EVENT_COLUMNS,
  enrichedEventToRow,
  firstPerEvent,
  rawEventToRow,
  rowToEnrichedEvent,
  rowToRawEvent,
} from '../event-row.js';
import type { ClickHouseConnection, Params, Row } from './clickhouse-connection.js';

const RAW_LIST = RAW_EVENT_COLUMNS.join(', ');
const ENRICHED_LIST = ENRICHED_EVENT_COLUMNS.join(', ');
const WINDOW = `WHERE project_id = {project_id:String}
  AND timestamp >= {start:Int64} AND timestamp < {end:Int64}
  ORDER BY timestamp, event_id LIMIT {limit:UInt64}`;

/** payload is String JSON; query stays an object for its Map column. */
const encodePayload = (row: Row): Row => ({ ...row, payload: JSON.stringify(row.payload) });

export class ClickHouseEventRepository implements EventRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  insertRaw(events: RawEvent[]): Promise<void> {
    // First occurrence wins inside a batch too: rows of one insert share one _version.
    return this.ch.insert(
      'raw_events',
      firstPerEvent(events).map((e) => encodePayload(rawEventToRow(e))),
    );
  }

  insertEnriched(events: EnrichedEvent[]): Promise<void> {
    return this.ch.insert(
      'enriched_events',
      firstPerEvent(events).map((e) => encodePayload(enrichedEventToRow(e))),
    );
  }

  async insertEvents(events: EventPair[]): Promise<void> {
    // Two tables, two inserts, sent together; each is idempotent on its own (ReplacingMergeTree).
    await Promise.all([this.insertRaw(events.map((e) => e.raw)), this.insertEnriched(events.map((e) => e.enriched))]);
  }

  async listRaw(projectId: string, q: ListQuery): Promise<RawEvent[]> {
    const rows = await this.ch.rows(
      `SELECT ${RAW_LIST} FROM ${this.ch.table('raw_events')} FINAL ${WINDOW}`,
      windowParams(projectId, q),
    );
    return rows.map(rowToRawEvent);
  }

  async listEnriched(projectId: string, q: ListQuery): Promise<EnrichedEvent[]> {
    const rows = await this.ch.rows(
      `SELECT ${ENRICHED_LIST} FROM ${this.ch.table('enriched_events')} FINAL ${WINDOW}`,
      windowParams(projectId, q),
    );
    return rows.map(rowToEnrichedEvent);
  }

  async sessionEvents(
    projectId: string,
    sessionId: string,
    within?: { from: number; to: number },
  ): Promise<EnrichedEvent[]> {
    // The index table narrows to this session's event ids (a primary-key range); the final
    // session_id check drops index entries left by a duplicate that lost to an earlier copy.
    const rows = await this.ch.rows(
      `SELECT ${ENRICHED_LIST} FROM ${this.ch.table('enriched_events')} FINAL
       WHERE project_id = {project_id:String}
         AND event_id IN (
           SELECT event_id FROM ${this.ch.table('enriched_events_by_session')}
           WHERE project_id = {project_id:String} AND session_id = {session_id:String})
         AND session_id = {session_id:String}
         AND timestamp BETWEEN {from:Int64} AND {to:Int64}
       ORDER BY timestamp, event_id`,
      { project_id: projectId, session_id: sessionId, from: within?.from ?? MIN_MS, to: within?.to ?? MAX_MS },
    );
    return rows.map(rowToEnrichedEvent);
  }

  /** sessionEvents for many sessions at once: one index-table lookup of every id, one read. */
  async eventsOfSessions(projectId: string, sessionIds: string[]): Promise<EnrichedEvent[]> {
    if (sessionIds.length === 0) return [];
    const rows = await this.ch.rows(
      `SELECT ${ENRICHED_LIST} FROM ${this.ch.table('enriched_events')} FINAL
       WHERE project_id = {project_id:String}
         AND event_id IN (
           SELECT event_id FROM ${this.ch.table('enriched_events_by_session')}
           WHERE project_id = {project_id:String} AND session_id IN {session_ids:Array(String)})
         AND session_id IN {session_ids:Array(String)}
       ORDER BY timestamp, event_id`,
      { project_id: projectId, session_ids: sessionIds },
    );
    return rows.map(rowToEnrichedEvent);
  }

  countRaw(projectId: string): Promise<number> {
    return this.count('raw_events', projectId);
  }

  countEnriched(projectId: string): Promise<number> {
    return this.count('enriched_events', projectId);
  }

  async touchActions(items: Array<{ project_id: string; action: string; last_seen: number }>): Promise<void> {
    // ReplacingMergeTree(last_seen) keeps the greatest last_seen per key, whatever the order.
    await this.ch.insert(
      'actions',
      items.map((a) => ({ project_id: a.project_id, action: a.action, last_seen: a.last_seen })),
    );
  }

  async listActions(projectId: string): Promise<ActionSeen[]> {
    const rows = await this.ch.rows(
      `SELECT action, last_seen FROM ${this.ch.table('actions')} FINAL
       WHERE project_id = {project_id:String} ORDER BY last_seen DESC, action`,
      { project_id: projectId },
    );
    return rows.map((r) => ({ action: toStr(r.action), last_seen: toInt(r.last_seen) }));
  }

  private async count(table: string, projectId: string): Promise<number> {
    const [row] = await this.ch.rows(
      `SELECT count() AS n FROM ${this.ch.table(table)} FINAL WHERE project_id = {project_id:String}`,
      { project_id: projectId },
    );
    return toInt(row?.n ?? 0);
  }
}

function windowParams(projectId: string, q: ListQuery): Params {
  return {
    project_id: projectId,
    start: q.window_start ?? MIN_MS,
    end: q.window_end ?? MAX_MS,
    limit: checkLimit(q.limit),
  };
}
