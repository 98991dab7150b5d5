import type { ActionSeen, EnrichedEvent, RawEvent } from '@spoor/schemas';
import type { EventPair, EventRepository, ListQuery } from '../store.js';
import { markHours } from './rollups.js';
import { checkLimit, MAX_MS, MIN_MS, toInt, toStr } from '../column-values.js';
import {
  ENRICHED_EVENT_COLUMNS,
  RAW_EVENT_COLUMNS,
  firstPerEvent,
  latestPerAction,
  rowToEnrichedEvent,
  rowToRawEvent,
} from '../event-row.js';
import {
  isConstraintViolation,
  quote,
  type DuckColumns,
  type DuckDbConnection,
  type DuckExecutor,
  type DuckReader,
} from './duckdb-connection.js';
import {
  appendEventRow,
  appendKeyRow,
  CREATE_EVENTS_STAGE,
  EVENT_KEYS_COLUMNS,
  eventHalves,
  EVENTS_STAGE,
  FILL_HALVES_FROM_STAGE,
  INSERT_NEW_FROM_STAGE,
  STORED_OF_STAGE,
  type EventHalves,
} from './events-table.js';

const ACTIONS: DuckColumns = [
  ['project_id', 'VARCHAR'],
  ['action', 'VARCHAR'],
  ['last_seen', 'BIGINT'],
];

const list = (names: readonly string[]) => names.map(quote).join(', ');
const RAW_LIST = list(RAW_EVENT_COLUMNS);
const ENRICHED_LIST = list(ENRICHED_EVENT_COLUMNS);
const ACTION_LIST = list(ACTIONS.map(([n]) => n));

/** Up to this many actions are upserted with bound values, more through a stage. */
const FEW_ACTIONS = 16;

const WINDOW = `WHERE project_id = $1 AND "timestamp" >= $2 AND "timestamp" < $3
  ORDER BY "timestamp", event_id LIMIT $4`;

/**
 * How many of the latest events' keys `event_keys` remembers at least (it holds up to twice as
 * many before it is cut back). An ART index lives in DuckDB's memory whole: 23 MiB at 500,000
 * keys and 48 MiB at a million, measured here, so the window bounds it where a key per stored event grew without end.
 */
export const DEFAULT_KEY_WINDOW = 500_000;

export class DuckDbEventRepository implements EventRepository {
  /** Rows in event_keys, once counted (an estimate between two rotations: merges may add fewer). */
  private keys: number | null = null;

  constructor(
    private readonly writer: DuckDbConnection,
    private readonly reader: DuckReader,
    private readonly keyWindow = DEFAULT_KEY_WINDOW,
  ) {}

  insertRaw(events: RawEvent[]): Promise<void> {
    return this.merge(firstPerEvent(events).map((raw) => eventHalves(raw, null)));
  }

  insertEnriched(events: EnrichedEvent[]): Promise<void> {
    return this.merge(firstPerEvent(events).map((enriched) => eventHalves(null, enriched)));
  }

  /**
   * The enricher's write: each event's key appended to `event_keys` and its one row to `events`,
   * in one transaction. A key still remembered (a replay after a crash, a client's repeat older
   * than the enricher's window) makes the key's append fail as a whole; the batch then goes the
   * merge's way, which keeps what is stored and adds the rest.
   */
  async insertEvents(events: EventPair[]): Promise<void> {
    const rows = firstPerEvent(
      events.map((p) => ({ project_id: p.enriched.project_id, event_id: p.enriched.event_id, pair: p })),
    ).map(({ pair }) => eventHalves(pair.raw, pair.enriched));
    if (rows.length === 0) return;
    await this.writer.exclusive(async (x) => {
      try {
        await x.transaction(async () => {
          await x.appendTo('event_keys', rows, appendKeyRow);
          await x.appendTo('events', rows, appendEventRow);
          await markHours(x, rows);
        });
      } catch (err) {
        if (!isConstraintViolation(err)) throw err;
        await mergeRows(x, rows);
      }
      await this.keptWithinWindow(x, rows.length);
    });
  }

  async listRaw(projectId: string, q: ListQuery): Promise<RawEvent[]> {
    const rows = await this.reader.all(`SELECT ${RAW_LIST} FROM raw_events ${WINDOW}`, windowParams(projectId, q));
    return rows.map(rowToRawEvent);
  }

  async listEnriched(projectId: string, q: ListQuery): Promise<EnrichedEvent[]> {
    const rows = await this.reader.all(
      `SELECT ${ENRICHED_LIST} FROM enriched_events ${WINDOW}`,
      windowParams(projectId, q),
    );
    return rows.map(rowToEnrichedEvent);
  }

  async sessionEvents(
    projectId: string,
    sessionId: string,
    within?: { from: number; to: number },
  ): Promise<EnrichedEvent[]> {
    // Without an index on the session (it would slow every append), a session's rows are found
    // by a scan; the time range prunes it to the row groups of the session's minutes (1 M events:
    // one row group of ~8).
    const rows = await this.reader.all(
      `SELECT ${ENRICHED_LIST} FROM enriched_events WHERE project_id = $1 AND session_id = $2 AND "timestamp" BETWEEN $3 AND $4
       ORDER BY "timestamp", event_id`,
      [projectId, sessionId, within?.from ?? MIN_MS, within?.to ?? MAX_MS],
    );
    return rows.map(rowToEnrichedEvent);
  }

  async eventsOfSessions(projectId: string, sessionIds: string[]): Promise<EnrichedEvent[]> {
    if (sessionIds.length === 0) return [];
    const rows = await this.reader.all(
      `SELECT ${ENRICHED_LIST} FROM enriched_events
       WHERE project_id = $1 AND session_id IN (SELECT unnest($2))
       ORDER BY "timestamp", event_id`,
      [projectId, sessionIds],
    );
    return rows.map(rowToEnrichedEvent);
  }

  countRaw(projectId: string): Promise<number> {
    return this.count('SELECT count(*) AS n FROM raw_events WHERE project_id = $1', projectId);
  }

  countEnriched(projectId: string): Promise<number> {
    return this.count('SELECT count(*) AS n FROM enriched_events WHERE project_id = $1', projectId);
  }

  async touchActions(items: Array<{ project_id: string; action: string; last_seen: number }>): Promise<void> {
    // One row per key first: a key twice in one INSERT … ON CONFLICT DO UPDATE silently keeps
    // the first row in DuckDB 1.5 instead of applying the update expression.
    const rows = latestPerAction(items);
    if (rows.length === 0) return;
    const upsert =
      'ON CONFLICT (project_id, action) DO UPDATE SET last_seen = greatest(actions.last_seen, excluded.last_seen)';
    if (rows.length <= FEW_ACTIONS) {
      // The usual batch touches a handful of actions: one statement with bound values costs a
      // fraction of a stage table, its appender and the INSERT … SELECT (issue 14).
      const values = rows.map((_, i) => `($${3 * i + 1}, $${3 * i + 2}, $${3 * i + 3}::BIGINT)`).join(', ');
      await this.writer.run(
        `INSERT INTO actions (${ACTION_LIST}) VALUES ${values} ${upsert}`,
        rows.flatMap((r) => [r.project_id, r.action, r.last_seen]),
      );
      return;
    }
    await this.writer.exclusive(async (x) => {
      await x.stage('stage_actions', 'actions', ACTIONS, rows);
      await x.run(`INSERT INTO actions (${ACTION_LIST}) SELECT ${ACTION_LIST} FROM stage_actions ${upsert}`);
    });
  }

  async listActions(projectId: string): Promise<ActionSeen[]> {
    const rows = await this.reader.all(
      'SELECT action, last_seen FROM actions WHERE project_id = $1 ORDER BY last_seen DESC, action',
      [projectId],
    );
    return rows.map((r) => ({ action: toStr(r.action), last_seen: toInt(r.last_seen) }));
  }

  private async merge(rows: EventHalves[]): Promise<void> {
    if (rows.length === 0) return;
    await this.writer.exclusive(async (x) => {
      await mergeRows(x, rows);
      await this.keptWithinWindow(x, rows.length);
    });
  }

  /**
   * Once `event_keys` holds twice the window, it is cut back to the latest window's keys: a
   * new table built from them (an index built whole is cheaper than deleting half of one key
   * by key), swapped in in one transaction. ~0.5 s for 500,000 keys, once per 500,000 events.
   */
  private async keptWithinWindow(x: DuckExecutor, added: number): Promise<void> {
    this.keys = (this.keys ?? (await countKeys(x))) + added;
    if (this.keys < 2 * this.keyWindow) return;
    const n = await countKeys(x);
    if (n >= 2 * this.keyWindow) {
      await x.transaction(async () => {
        await x.run(`CREATE TABLE event_keys_kept (${EVENT_KEYS_COLUMNS})`);
        // rowid follows the appends; erasures leave gaps, so this keeps at most the window.
        await x.run(
          `INSERT INTO event_keys_kept SELECT * FROM event_keys WHERE rowid > (SELECT max(rowid) FROM event_keys) - $1`,
          [this.keyWindow],
        );
        await x.run('DROP TABLE event_keys');
        await x.run('ALTER TABLE event_keys_kept RENAME TO event_keys');
      });
    }
    this.keys = await countKeys(x);
  }

  private async count(sql: string, projectId: string): Promise<number> {
    const [row] = await this.reader.all(sql, [projectId]);
    return toInt(row?.n ?? 0);
  }
}

/** The slow path, in one transaction: rows remembered get the halves they lack, the rest are added. */
async function mergeRows(x: DuckExecutor, rows: readonly EventHalves[]): Promise<void> {
  await x.stageWith(EVENTS_STAGE, CREATE_EVENTS_STAGE, rows, appendEventRow);
  await x.transaction(async () => {
    const [stored] = await x.all(STORED_OF_STAGE);
    if (toInt(stored?.n ?? 0) > 0) await x.run(FILL_HALVES_FROM_STAGE, [toInt(stored!.lo), toInt(stored!.hi)]);
    for (const sql of INSERT_NEW_FROM_STAGE) await x.run(sql);
    await markHours(x, rows);
  });
}

async function countKeys(x: DuckExecutor): Promise<number> {
  const [row] = await x.all('SELECT count(*) AS n FROM event_keys');
  return toInt(row?.n ?? 0);
}

function windowParams(projectId: string, q: ListQuery): [string, number, number, number] {
  return [projectId, q.window_start ?? MIN_MS, q.window_end ?? MAX_MS, checkLimit(q.limit)];
}
