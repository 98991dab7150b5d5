// Hourly rollups of the enriched events (issue 15, target 6; docs/analytics.md, Rollups). An
// overview's event figures and a transition matrix are summed from them for the window's whole
// hours; only the window's partial first and last hours are read from the events themselves.
//
// Kept exact by marks written at insert: every write that adds or fills an enriched event marks
// its (project, hour) in `rollup_dirty`, in the same transaction; a job first rebuilds its
// project's marked hours from the events and clears the marks, in one transaction on the writer
// connection, which serialises it with every write. An hour is rebuilt whole, so late events,
// repeats stored again (event-repository.ts) and erasures leave no trace of an older count.
//
// A transition matrix does not add up by hour: a session's path crosses hours. So each hour keeps
// its sessions' segments (the session's first and last action within the hour) and the counts
// of transitions between consecutive events inside one segment; the matrix is those counts plus
// the joins between a session's consecutive segments, `$start` before its first segment in the
// window and `$end` after its last. A late event changes only its own hour's segments.
import { PAGE_VIEW_SQL } from '../analytics-row.js';
import { toInt } from '../column-values.js';
import { HOUR_MS, hourRuns } from '../rollup-hours.js';
import type { DuckExecutor } from './duckdb-connection.js';
import type { EventHalves } from './events-table.js';
import { SESSION_DIMENSION_SQL } from './session-derived.js';

/** The rollup tables, each with project_id (project erasure deletes from all). */
export const ROLLUP_TABLES = [
  'rollup_dirty',
  'rollup_events',
  'rollup_visitors',
  'rollup_segments',
  'rollup_cells',
  'rollup_stat_sessions',
  'rollup_stat_pages',
  'rollup_stat_fresh',
] as const;

/** The rollups built from the events (rollup_stat_fresh is built from two of them). */
type RolledTable = Exclude<(typeof ROLLUP_TABLES)[number], 'rollup_dirty' | 'rollup_stat_fresh'>;

export const CREATE_ROLLUP_TABLES = [
  `CREATE TABLE rollup_dirty (
    project_id VARCHAR NOT NULL,
    hour       BIGINT  NOT NULL,
    PRIMARY KEY (project_id, hour))`,
  // Non-bot events per hour, action and page (path only for page views, else NULL).
  `CREATE TABLE rollup_events (
    project_id VARCHAR NOT NULL,
    hour       BIGINT  NOT NULL,
    action     VARCHAR NOT NULL,
    path       VARCHAR,
    events     BIGINT  NOT NULL)`,
  // Each visitor (the hash the raw count uses) once per hour it was seen, with its first and
  // last event of the hour: a series bucket that takes the hour's start or end up to a time
  // holds the visitor exactly when the first is before it, or the last at or after it.
  `CREATE TABLE rollup_visitors (
    project_id VARCHAR NOT NULL,
    hour       BIGINT  NOT NULL,
    visitor    UBIGINT NOT NULL,
    first_at   BIGINT  NOT NULL,
    last_at    BIGINT  NOT NULL)`,
  `CREATE TABLE rollup_segments (
    project_id   VARCHAR NOT NULL,
    hour         BIGINT  NOT NULL,
    session_id   VARCHAR NOT NULL,
    first_action VARCHAR NOT NULL,
    last_action  VARCHAR NOT NULL)`,
  `CREATE TABLE rollup_cells (
    project_id  VARCHAR NOT NULL,
    hour        BIGINT  NOT NULL,
    from_action VARCHAR NOT NULL,
    to_action   VARCHAR NOT NULL,
    n           BIGINT  NOT NULL)`,
] as const;

const HOUR = `"timestamp" // ${HOUR_MS}`;
/** Consecutive events of a session within one hour; the same order the raw matrix uses. */
const IN_SEGMENT = `PARTITION BY session_id, ${HOUR} ORDER BY "timestamp", event_id`;

/** The visitor key of an event row: the hash every visitor count of the embedded store uses. */
export const VISITOR_KEY = 'hash(ip, user_agent)';

/** A session id's key in the stats rollups, NULL for NULL (stats-query.ts, StatsRollups). */
export const sessionKey = (expr: string) => `CASE WHEN ${expr} IS NOT NULL THEN hash(${expr}) END`;

/** The session dimensions (SESSION_DIMENSION_SQL) as columns `sd_<name>`: the stats query's names. */
export const STATS_SESSION_DIM = (name: string) => `sd_${name}`;
const DIM_NAMES = Object.keys(SESSION_DIMENSION_SQL);
/** Their values over the sessions `s` of a LEFT JOIN: NULL when the session has no summary. */
const SESSION_DIMS_OF_S = DIM_NAMES.map(
  (d) => `CASE WHEN s.session_key IS NOT NULL THEN ${SESSION_DIMENSION_SQL[d]} END AS ${STATS_SESSION_DIM(d)}`,
).join(', ');

/**
 * The previous-hour columns of a stats rollup (issue 44; stats-query.ts, StatsRollups): for each
 * row, the hour its key (the entity, and a column's value) was last seen before it, or NULL: a
 * row's key is new in a window of whole hours from `lo` exactly when that hour is before `lo`, so
 * the visitors of a key are counted, not distinct-counted. A later row of the same hour (`tie`)
 * gets the hour itself. The first column's key is the entity alone.
 */
interface PrevHours {
  table: 'rollup_stat_sessions' | 'rollup_stat_pages';
  /** The entity the keys refine (its last column the visitor), and what else tells rows apart. */
  entity: string;
  tie: string | null;
  columns: Array<{ name: string; value: string | null }>;
}

const PAGES_PREV: PrevHours = {
  table: 'rollup_stat_pages',
  entity: 'path, visitor',
  tie: null,
  columns: [{ name: 'prev_hour', value: null }],
};

/** A visitor's, and a visitor's with each session dimension's value (NULL: not in a session of it). */
const STATS_PREV_VISITOR = 'prev_visitor';
const STATS_PREV_DIM = (name: string) => `prev_${name}`;
const SESSIONS_PREV: PrevHours = {
  table: 'rollup_stat_sessions',
  entity: 'visitor',
  tie: 'session_key',
  columns: [
    { name: STATS_PREV_VISITOR, value: null },
    ...DIM_NAMES.map((d) => ({ name: STATS_PREV_DIM(d), value: STATS_SESSION_DIM(d) })),
  ],
};

/**
 * Each row of `p.table` matching `where` (every row of an entity, or none) with its previous
 * hours worked out, and, as `was_<column>`, those it holds. The columns' keys are unpivoted into
 * one window (DuckDB sorts a window of its own for each partitioning, ~6 ms each however few the
 * rows), and the rows pivoted back.
 */
function prevRows(p: PrevHours, where: string): string {
  const ids = ['project_id', ...p.entity.split(', '), 'hour', ...(p.tie ? [p.tie] : [])].join(', ');
  const was = p.columns.map((c) => `${c.name} AS was_${c.name}`).join(', ');
  const order = `ORDER BY hour${p.tie ? `, ${p.tie}` : ''}`;
  const values = p.columns.map((c) => c.value ?? 'NULL::VARCHAR').join(', ');
  return `SELECT ${ids}, ${p.columns.map((c) => `was_${c.name}`).join(', ')},
      ${p.columns.map((c, i) => `max(prev) FILTER (WHERE k = ${i}) AS ${c.name}`).join(', ')}
    FROM (SELECT *, lag(hour) OVER (PARTITION BY project_id, ${p.entity}, k, v ${order}) AS prev
      FROM (SELECT ${ids}, ${was}, unnest(range(${p.columns.length})) AS k, unnest([${values}]) AS v
        FROM ${p.table} WHERE ${where}))
    GROUP BY ALL`;
}

/** Rows are the same row: the entity, the hour, the tie. */
const sameRow = (p: PrevHours) =>
  [
    ...[...p.entity.split(', '), 'hour'].map((c) => `r.${c} = x.${c}`),
    ...(p.tie ? [`r.${p.tie} IS NOT DISTINCT FROM x.${p.tie}`] : []),
  ].join(' AND ');

const setPrev = (p: PrevHours) => p.columns.map((c) => `${c.name} = x.${c.name}`).join(', ');

/**
 * The previous-hour columns of rows being inserted: worked out among them, one window each (a
 * whole build: at 10 M events one window over the rows unpivoted, then an UPDATE, took 60 s, the
 * windows ~20), or NULL for prevUpkeep.
 */
function prevHours(p: PrevHours, built: boolean): string {
  if (!built) return p.columns.map(() => 'NULL::BIGINT').join(', ');
  const order = `ORDER BY hour${p.tie ? `, ${p.tie}` : ''}`;
  return p.columns
    .map((c) => `lag(hour) OVER (PARTITION BY project_id, ${p.entity}${c.value ? `, ${c.value}` : ''} ${order})`)
    .join(', ');
}

/** The rows whose previous hours prevUpkeep changed, until the next upkeep (a temporary table). */
const changes = (p: PrevHours) => `temp.${p.table}_prev_changes`;

/**
 * After a project's hours [$2, $3) of a table were rebuilt (their rows' previous hours NULL):
 * the previous hours of every row from $2 on of the visitors it touched, which are those of its
 * new rows and those of later rows whose previous hour was one of its old rows, worked out into
 * `changes` (the rows whose previous hours change) and written from there. Visitors, not pairs,
 * are matched: a number, not a path's hash, and a pair's rows are among its visitor's.
 */
function prevUpkeep(p: PrevHours): string[] {
  const first = p.columns[0]!.name;
  const touched = `project_id = $1 AND visitor IN (SELECT visitor FROM ${p.table} WHERE project_id = $1
      AND ((hour >= $2 AND hour < $3) OR (${first} >= $2 AND ${first} < $3 AND hour >= $3)))`;
  return [
    `CREATE OR REPLACE TEMP TABLE ${p.table}_prev_changes AS SELECT * FROM (${prevRows(p, touched)})
      WHERE hour >= $2 AND (${p.columns.map((c) => `was_${c.name} IS DISTINCT FROM ${c.name}`).join(' OR ')})`,
    `UPDATE ${p.table} AS r SET ${setPrev(p)} FROM ${changes(p)} AS x WHERE r.project_id = $1 AND ${sameRow(p)}`,
  ];
}

/**
 * The stats rollups' pairs counted by previous hour (issue 44; stats-query.ts, StatsRollups): per
 * hour, key and previous hour, how many of that hour's rows of the key (`key`: 'page' with the
 * path as `value`, 'visitor' with none, or a session dimension with its value) and their events
 * and page views. A key's visitors over whole hours from `lo` are the pairs of its rows whose
 * previous hour is before `lo`: at 10 M events 17,841 rows instead of the pages' 3.2 M, ~10,000
 * for a session dimension instead of 1.15 M; a site whose visitors come back has more.
 */
const SESSION_KEYS = SESSIONS_PREV.columns.map((c, i) => (i === 0 ? 'visitor' : DIM_NAMES[i - 1]!));

/**
 * Counts rollup_stat_fresh's rows of the hours matching `where` (over the two rollups); the
 * sessions rollup's keys unpivoted, so that it is read once.
 */
const freshCounts = (where: string) => `INSERT INTO rollup_stat_fresh
    SELECT project_id, hour, 'page', path, prev_hour, count(*), sum(pageviews), sum(pageviews)
      FROM rollup_stat_pages WHERE ${where} GROUP BY ALL
    UNION ALL SELECT project_id, hour, key, value, prev, count(*), sum(events), sum(pageviews) FROM (
      SELECT project_id, hour, events, pageviews, unnest([${SESSION_KEYS.map((k) => `'${k}'`).join(', ')}]) AS key,
        unnest([${SESSIONS_PREV.columns.map((c) => c.value ?? 'NULL::VARCHAR').join(', ')}]) AS value,
        unnest([${SESSIONS_PREV.columns.map((c) => c.name).join(', ')}]) AS prev
      FROM rollup_stat_sessions WHERE ${where})
    WHERE key = 'visitor' OR value IS NOT NULL GROUP BY ALL
    ORDER BY hour`;

/**
 * After the upkeep of hours [$2, $3): their counts again, and those of the hours whose rows it
 * changed (a temporary table of them: a semi join on it prunes the rollups' row groups by hour).
 */
const FRESH_HOURS = 'project_id = $1 AND hour IN (SELECT hour FROM temp.stat_fresh_hours)';
const FRESH_UPKEEP = [
  `CREATE OR REPLACE TEMP TABLE stat_fresh_hours AS SELECT DISTINCT hour FROM (
    SELECT unnest(range($2, $3)) AS hour UNION ALL SELECT hour FROM ${changes(PAGES_PREV)} WHERE project_id = $1
    UNION ALL SELECT hour FROM ${changes(SESSIONS_PREV)} WHERE project_id = $1)`,
  `DELETE FROM rollup_stat_fresh WHERE ${FRESH_HOURS}`,
  freshCounts(FRESH_HOURS),
];

/** A project's counts again from the start (after its previous hours changed all over: expiry). */
export const FRESH_OF_PROJECT = ['DELETE FROM rollup_stat_fresh WHERE project_id = $1', freshCounts('project_id = $1')];

const CREATE_FRESH_TABLE = `CREATE TABLE rollup_stat_fresh (
    project_id VARCHAR NOT NULL,
    hour       BIGINT  NOT NULL,
    key        VARCHAR NOT NULL,
    value      VARCHAR,
    prev_hour  BIGINT,
    pairs      BIGINT  NOT NULL,
    events     BIGINT  NOT NULL,
    pageviews  BIGINT  NOT NULL)`;

/** After a project's rows before the hour of $2 (a time) went: no previous hour among them. */
export const EXPIRED_PREV_HOURS = [PAGES_PREV, SESSIONS_PREV].map(
  (p) => `UPDATE ${p.table} SET ${p.columns
    .map((c) => `${c.name} = CASE WHEN ${c.name} < $2 // ${HOUR_MS} THEN NULL ELSE ${c.name} END`)
    .join(', ')}
  WHERE project_id = $1 AND (${p.columns.map((c) => `${c.name} < $2 // ${HOUR_MS}`).join(' OR ')})`,
);

/**
 * Each rollup's INSERT of the events matching `where` (over enriched_events); `built`: the stats
 * rollups' previous hours worked out among the rows inserted (a whole build), else NULL for
 * prevUpkeep to work out.
 */
const INSERTS: Record<RolledTable, (where: string, built: boolean) => string> = {
  rollup_events: (
    where,
  ) => `INSERT INTO rollup_events SELECT project_id, ${HOUR}, action, CASE WHEN action IN (${PAGE_VIEW_SQL}) THEN path END, count(*)
      FROM enriched_events WHERE ${where} AND NOT bot GROUP BY ALL`,
  rollup_visitors: (
    where,
  ) => `INSERT INTO rollup_visitors SELECT project_id, ${HOUR}, ${VISITOR_KEY}, min("timestamp"), max("timestamp")
      FROM enriched_events WHERE ${where} AND NOT bot GROUP BY ALL`,
  rollup_segments: (where) => `INSERT INTO rollup_segments SELECT project_id, ${HOUR}, session_id,
        arg_min(action, ("timestamp", event_id)), arg_max(action, ("timestamp", event_id))
      FROM enriched_events WHERE ${where} AND NOT bot AND session_id IS NOT NULL GROUP BY ALL`,
  rollup_cells: (where) => `INSERT INTO rollup_cells SELECT project_id, h, prev, action, count(*) FROM (
        SELECT project_id, ${HOUR} AS h, action, lag(action) OVER (${IN_SEGMENT}) AS prev
        FROM enriched_events WHERE ${where} AND NOT bot AND session_id IS NOT NULL)
      WHERE prev IS NOT NULL GROUP BY ALL`,
  // Each session dimension's value is copied from the session's summary (NULL without one), so a
  // top list of visitors groups one table instead of joining it to the sessions: a session's
  // summary write marks its hours (markSessionHours), so they are rebuilt with its new values.
  // The sessions are those of the rows (a join of all a project's sessions for an hour's rows
  // cost ~100 ms at 1 M events). Previous hours NULL: prevUpkeep works them out after.
  rollup_stat_sessions: (where, built) => `INSERT INTO rollup_stat_sessions
      WITH r AS (SELECT project_id, ${HOUR} AS hour, ${sessionKey('session_id')} AS session_key, ${VISITOR_KEY} AS visitor,
          count(*) AS events, count(*) FILTER (WHERE action IN (${PAGE_VIEW_SQL})) AS pageviews
        FROM enriched_events WHERE ${where} AND NOT bot GROUP BY ALL)
      SELECT *, ${prevHours(SESSIONS_PREV, built)} FROM (SELECT r.*, ${SESSION_DIMS_OF_S}
        FROM r LEFT JOIN (SELECT * FROM sessions WHERE session_key IN (SELECT session_key FROM r)) AS s
          ON s.project_id = r.project_id AND s.session_key = r.session_key)
      ORDER BY hour`,
  rollup_stat_pages: (where, built) => `INSERT INTO rollup_stat_pages SELECT *, ${prevHours(PAGES_PREV, built)}
      FROM (SELECT project_id, ${HOUR} AS hour, path, ${VISITOR_KEY} AS visitor, count(*) AS pageviews
        FROM enriched_events WHERE ${where} AND NOT bot AND action IN (${PAGE_VIEW_SQL}) AND path IS NOT NULL GROUP BY ALL)
      ORDER BY hour`,
};

const ALL_ROLLED = ROLLUP_TABLES.filter((t): t is RolledTable => t !== 'rollup_dirty' && t !== 'rollup_stat_fresh');

/**
 * Statements that rebuild the rollups of the events matching `where` (over enriched_events),
 * after deleting the rollup rows matching `whereRollup`. With `$n` parameters both.
 */
export function rebuildStatements(
  where: string,
  whereRollup: string,
  tables: readonly RolledTable[] = ALL_ROLLED,
  built = false,
): string[] {
  return [
    ...tables.map((t) => `DELETE FROM ${t} WHERE ${whereRollup}`),
    ...tables.map((t) => INSERTS[t](where, built)),
  ];
}

/** A project's hours [$2, $3), by hour number. */
const HOURS_OF_PROJECT = [
  ...rebuildStatements(
    `project_id = $1 AND "timestamp" >= $2::BIGINT * ${HOUR_MS} AND "timestamp" < $3::BIGINT * ${HOUR_MS}`,
    'project_id = $1 AND hour >= $2 AND hour < $3',
  ),
  ...prevUpkeep(SESSIONS_PREV),
  ...prevUpkeep(PAGES_PREV),
  ...FRESH_UPKEEP,
  // Each with how many of ($1, $2, $3) it takes: DuckDB refuses a value it has no place for.
].map((sql) => [sql, Math.max(...[...sql.matchAll(/\$(\d)/g)].map((m) => Number(m[1])))] as const);

/** Migration step 10: every project's rollups of that step from the events stored before it. */
export const BUILD_ALL_ROLLUPS = rebuildStatements('TRUE', 'TRUE', [
  'rollup_events',
  'rollup_visitors',
  'rollup_segments',
  'rollup_cells',
]);

/**
 * The stats query's rollups as migration step 14 made them (issue 44), empty: step 17 makes them
 * again as they are now, and builds them.
 */
export const CREATE_STATS_ROLLUP_TABLES_14 = [
  `CREATE TABLE rollup_stat_sessions (
    project_id  VARCHAR NOT NULL,
    hour        BIGINT  NOT NULL,
    session_key UBIGINT,
    visitor     UBIGINT NOT NULL,
    events      BIGINT  NOT NULL,
    pageviews   BIGINT  NOT NULL)`,
  `CREATE TABLE rollup_stat_pages (
    project_id VARCHAR NOT NULL,
    hour       BIGINT  NOT NULL,
    path       VARCHAR NOT NULL,
    visitor    UBIGINT NOT NULL,
    pageviews  BIGINT  NOT NULL)`,
] as const;

/**
 * The stats query's rollups (issue 44; stats-query.ts, StatsRollups), migration step 17: per
 * hour, each (session key, visitor) with its events and page views, its session's dimensions and
 * its previous hours (SESSIONS_PREV), and each (page-view path, visitor) with its page views and
 * previous hour (PAGES_PREV). Tags are joined at query time, so a tag needs no rebuild. The
 * session key is a 64-bit hash of the id, like the visitor key.
 */
export const STATS_ROLLUPS_17 = [
  'DROP TABLE IF EXISTS rollup_stat_sessions',
  'DROP TABLE IF EXISTS rollup_stat_pages',
  `CREATE TABLE rollup_stat_sessions (
    project_id  VARCHAR NOT NULL,
    hour        BIGINT  NOT NULL,
    session_key UBIGINT,
    visitor     UBIGINT NOT NULL,
    events      BIGINT  NOT NULL,
    pageviews   BIGINT  NOT NULL,
    ${DIM_NAMES.map((d) => `${STATS_SESSION_DIM(d)} VARCHAR`).join(',\n    ')},
    ${SESSIONS_PREV.columns.map((c) => `${c.name} BIGINT`).join(',\n    ')})`,
  `CREATE TABLE rollup_stat_pages (
    project_id VARCHAR NOT NULL,
    hour       BIGINT  NOT NULL,
    path       VARCHAR NOT NULL,
    visitor    UBIGINT NOT NULL,
    pageviews  BIGINT  NOT NULL,
    prev_hour  BIGINT)`,
  ...rebuildStatements('TRUE', 'TRUE', ['rollup_stat_sessions', 'rollup_stat_pages'], true).filter((q) =>
    q.startsWith('INSERT'),
  ),
  'DROP TABLE IF EXISTS rollup_stat_fresh',
  CREATE_FRESH_TABLE,
  freshCounts('TRUE'),
];

/** Marks the hours of the enriched halves among `rows`; inside the writing transaction. */
export async function markHours(x: DuckExecutor, rows: readonly EventHalves[]): Promise<void> {
  const hours = new Map<string, Set<number>>();
  for (const { enriched: e } of rows) {
    if (!e) continue;
    let set = hours.get(e.project_id);
    if (!set) hours.set(e.project_id, (set = new Set()));
    set.add(Math.floor(e.timestamp / HOUR_MS));
  }
  const values = [...hours].flatMap(([project, set]) => [...set].map((h) => [project, h] as const));
  if (values.length === 0) return;
  await x.run(
    `INSERT INTO rollup_dirty VALUES ${values.map((_, i) => `($${2 * i + 1}, $${2 * i + 2})`).join(', ')} ON CONFLICT DO NOTHING`,
    values.flat(),
  );
}

/**
 * Marks the hours of the sessions of the staged summaries `stage` (first to last event), in the
 * writer's hold that writes them: the stats rollups hold their dimensions (rollup_stat_sessions).
 */
export const markSessionHours = (stage: string) =>
  `INSERT INTO rollup_dirty SELECT DISTINCT project_id, unnest(range(first_event_at // ${HOUR_MS}, last_event_at // ${HOUR_MS} + 1))
    FROM ${stage} ON CONFLICT DO NOTHING`;

/** Marks every hour of a project's enriched events matching `where` (erasures, before they delete). */
export function markWhere(where: string): string {
  return `INSERT INTO rollup_dirty SELECT DISTINCT project_id, ${HOUR} FROM events WHERE has_enriched AND ${where}
    ON CONFLICT DO NOTHING`;
}

/** Marked hours rebuilt per transaction: the writer is let go between, so the pipeline's writes go on. */
export const REBUILD_CHUNK_HOURS = 24;

type Hold = <T>(fn: (x: DuckExecutor) => Promise<T>) => Promise<T>;

/**
 * Rebuilds the hours a project had marked when it began, REBUILD_CHUNK_HOURS at a time, each
 * chunk in one transaction with the deletion of its marks, on the writer (`hold`: its exclusive
 * hold, taken per chunk). An hour marked again meanwhile stays marked for the next refresh.
 * After a bulk load of 10 M events the first refresh rebuilt a month in ~12 s; in 24-hour chunks
 * no write waits more than one chunk.
 */
export async function refreshRollups(hold: Hold, projectId: string): Promise<void> {
  const hours = await hold(async (x) =>
    (await x.all('SELECT hour FROM rollup_dirty WHERE project_id = $1 ORDER BY hour', [projectId])).map((r) =>
      toInt(r.hour),
    ),
  );
  for (let i = 0; i < hours.length; i += REBUILD_CHUNK_HOURS) {
    const chunk = hours.slice(i, i + REBUILD_CHUNK_HOURS);
    await hold((x) =>
      x.transaction(async () => {
        for (const [lo, hi] of hourRuns(chunk)) {
          for (const [sql, n] of HOURS_OF_PROJECT) await x.run(sql, [projectId, lo, hi].slice(0, n));
          await x.run('DELETE FROM rollup_dirty WHERE project_id = $1 AND hour >= $2 AND hour < $3', [
            projectId,
            lo,
            hi,
          ]);
        }
      }),
    );
  }
}

/** `refreshRollups` inside a hold already taken. */
export const refreshHeld = (x: DuckExecutor, projectId: string) => refreshRollups((fn) => fn(x), projectId);
