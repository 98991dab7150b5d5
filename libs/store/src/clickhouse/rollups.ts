// Hourly rollups of the enriched events in ClickHouse (issue 15, target 6; docs/analytics.md,
// Rollups): the same tables as the embedded store's (duckdb/rollups.ts), for the same reads.
//
// Marks: a materialized view on enriched_events writes (project, hour, server time) for every
// block inserted; erasures and expiry write theirs after their DELETEs. A refresh reads each
// marked hour's latest mark M, rebuilds the hour from the events (FINAL) and records it built
// through M. An hour is clean while no mark is greater than that. This needs no margin: an insert
// writes its events before its view runs (the mark's time is taken after the events are in), so
// a mark the refresh saw stands for events its rebuild reads.
//
// Generations: several workers may refresh at once and ClickHouse has no transactions, so a
// rebuild writes its rows under a new random generation, then its `rollup_hours` rows; readers
// take each hour's newest (built_at, gen). Superseded generations are deleted by a later refresh
// once the generation that superseded them is ten minutes old, and at once by an erasure or a
// retention pass (purgeSupersededNow): an older generation still counts the erased events and
// names their sessions and visitor hashes (issue 43).
import { randomBytes } from 'node:crypto';
import { PAGE_VIEW_SQL } from '../analytics-row.js';
import { toInt, toStr } from '../column-values.js';
import { HOUR_MS, hourRuns } from '../rollup-hours.js';
import type { ClickHouseConnection } from './clickhouse-connection.js';

/** Rollup rows carry a generation; the hours and marks do not. */
const GENERATIONAL = ['rollup_events', 'rollup_minutes', 'rollup_visitors', 'rollup_segments', 'rollup_cells'] as const;
export const ROLLUP_TABLES = ['rollup_dirty', 'rollup_hours', ...GENERATIONAL] as const;

/** A superseded generation is deleted once the one that superseded it is this old. */
const PURGE_AFTER_MS = 10 * 60_000;

const NOW_MS = 'toUnixTimestamp64Milli(now64(3))';

/** A table of rollup rows: one project's hour, one generation, then its own columns. */
const generational = (db: string, name: string, columns: string) =>
  `CREATE TABLE IF NOT EXISTS ${db}.${name} (project_id String, hour Int64, gen UInt64, ${columns})
    ENGINE = MergeTree ORDER BY (project_id, hour, gen)`;

/** Migration step 10: the tables, the marking view, and marks for the hours already stored. */
export const rollupMigration = (db: string): string[] => [
  `CREATE TABLE IF NOT EXISTS ${db}.rollup_dirty (
    project_id String,
    hour       Int64,
    marked_at  Int64
  ) ENGINE = ReplacingMergeTree(marked_at) ORDER BY (project_id, hour)`,
  `CREATE TABLE IF NOT EXISTS ${db}.rollup_hours (
    project_id String,
    hour       Int64,
    built_at   Int64,
    gen        UInt64,
    written_at Int64 DEFAULT ${NOW_MS}
  ) ENGINE = MergeTree ORDER BY (project_id, hour)`,
  generational(db, 'rollup_events', 'action String, path Nullable(String), events UInt64'),
  // Events per minute: a series bucket start cuts a minute, not an hour; step 11 adds the events'
  // offsets in the minute, which split a cut minute (the embedded store counts one column instead).
  generational(db, 'rollup_minutes', 'minute Int64, events UInt64'),
  generational(db, 'rollup_visitors', 'visitor UInt64, first_at Int64, last_at Int64'),
  generational(db, 'rollup_segments', 'session_id String, first_action String, last_action String'),
  generational(db, 'rollup_cells', 'from_action String, to_action String, n UInt64'),
  `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.rollup_dirty_mv TO ${db}.rollup_dirty
    AS SELECT project_id, intDiv(timestamp, ${HOUR_MS}) AS hour, max(${NOW_MS}) AS marked_at
    FROM ${db}.enriched_events GROUP BY project_id, hour`,
  `INSERT INTO ${db}.rollup_dirty (project_id, hour, marked_at)
    SELECT project_id, intDiv(timestamp, ${HOUR_MS}) AS hour, max(${NOW_MS}) FROM ${db}.enriched_events GROUP BY project_id, hour`,
];

/**
 * Migration step 11: each minute's rollup row also keeps its events' offsets in the minute (ms,
 * `timestamp` − minute start), so a series bucket start that cuts a minute splits the minute's
 * count from the row instead of reading the minute's events under FINAL: 148 → 30 ms for the
 * ~120 minutes a 30-day overview cuts at 10 M events on the stand-in, for ~2 bytes an event
 * (issue 15). Every hour built before is marked, so the next refresh, which comes before any
 * read of the rollups, rebuilds it with its offsets.
 */
export const rollupOffsetsMigration = (db: string): string[] => [
  `ALTER TABLE ${db}.rollup_minutes ADD COLUMN IF NOT EXISTS offsets Array(UInt16)`,
  `INSERT INTO ${db}.rollup_dirty (project_id, hour, marked_at)
    SELECT project_id, hour, ${NOW_MS} FROM ${db}.rollup_hours GROUP BY project_id, hour`,
];

/** Marks `hours` of a project; after the DELETE that changed them. */
export async function markHours(ch: ClickHouseConnection, projectId: string, hours: readonly number[]): Promise<void> {
  if (hours.length === 0) return;
  await ch.command(
    `INSERT INTO ${ch.table('rollup_dirty')} (project_id, hour, marked_at)
     SELECT {p:String}, arrayJoin({h:Array(Int64)}), ${NOW_MS}`,
    { p: projectId, h: [...hours] },
  );
}

/** The hours of the events matching `where` (read before they are deleted). */
export async function hoursWhere(
  ch: ClickHouseConnection,
  where: string,
  params: Record<string, unknown>,
): Promise<number[]> {
  const rows = await ch.rows(
    `SELECT DISTINCT intDiv(timestamp, ${HOUR_MS}) AS h FROM ${ch.table('enriched_events')} WHERE ${where}`,
    params,
  );
  return rows.map((r) => toInt(r.h));
}

/** The current generation of each of a project's hours in [{lo}, {hi}). */
export const currentGenerations = (ch: ClickHouseConnection) =>
  `(hour, gen) IN (SELECT hour, argMax(gen, (built_at, gen)) FROM ${ch.table('rollup_hours')}
    WHERE project_id = {project_id:String} AND hour >= {lo:Int64} AND hour < {hi:Int64} GROUP BY hour)`;

function rebuildStatements(ch: ClickHouseConnection): string[] {
  const events = `${ch.table('enriched_events')} FINAL
    WHERE project_id = {project_id:String} AND timestamp >= {lo_ms:Int64} AND timestamp < {hi_ms:Int64} AND NOT bot`;
  const h = `intDiv(timestamp, ${HOUR_MS})`;
  return [
    `INSERT INTO ${ch.table('rollup_events')} (project_id, hour, gen, action, path, events)
      SELECT project_id, ${h} AS h, {gen:UInt64}, toString(action) AS a, if(action IN (${PAGE_VIEW_SQL}), path, NULL) AS pv, count()
      FROM ${events} GROUP BY project_id, h, a, pv`,
    `INSERT INTO ${ch.table('rollup_minutes')} (project_id, hour, gen, minute, events, offsets)
      SELECT project_id, ${h} AS h, {gen:UInt64}, intDiv(timestamp, 60000) AS m, count(), groupArray(toUInt16(timestamp - m * 60000))
      FROM ${events} GROUP BY project_id, h, m`,
    `INSERT INTO ${ch.table('rollup_visitors')} (project_id, hour, gen, visitor, first_at, last_at)
      SELECT project_id, ${h} AS h, {gen:UInt64}, cityHash64(ip, user_agent) AS v, min(timestamp), max(timestamp)
      FROM ${events} GROUP BY project_id, h, v`,
    `INSERT INTO ${ch.table('rollup_segments')} (project_id, hour, gen, session_id, first_action, last_action)
      SELECT project_id, ${h} AS h, {gen:UInt64}, assumeNotNull(session_id) AS s,
             argMin(toString(action), (timestamp, event_id)), argMax(toString(action), (timestamp, event_id))
      FROM ${events} AND session_id IS NOT NULL GROUP BY project_id, h, s`,
    `INSERT INTO ${ch.table('rollup_cells')} (project_id, hour, gen, from_action, to_action, n)
      SELECT project_id, h, {gen:UInt64}, prev, a, count() FROM (
        SELECT project_id, ${h} AS h, toString(action) AS a, row_number() OVER w AS rn, lagInFrame(toString(action)) OVER w AS prev
        FROM ${events} AND session_id IS NOT NULL
        WINDOW w AS (PARTITION BY session_id, ${h} ORDER BY timestamp, event_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW))
      WHERE rn > 1 GROUP BY project_id, h, prev, a`,
  ];
}

/** Rebuilds a project's hours marked since they were last built; first purges superseded generations. */
export async function refreshRollups(
  ch: ClickHouseConnection,
  projectId: string,
  purgeAfterMs = PURGE_AFTER_MS,
): Promise<void> {
  const p = { p: projectId };
  const dirty = await ch.rows(
    `SELECT d.hour AS hour, d.m AS mark FROM
       (SELECT hour, max(marked_at) AS m FROM ${ch.table('rollup_dirty')} WHERE project_id = {p:String} GROUP BY hour) AS d
       LEFT JOIN (SELECT hour, max(built_at) AS b FROM ${ch.table('rollup_hours')} WHERE project_id = {p:String} GROUP BY hour) AS h
       ON d.hour = h.hour
     WHERE d.m > h.b`,
    p,
  );
  if (dirty.length === 0) return;
  await purgeSuperseded(ch, projectId, purgeAfterMs);
  const marks = new Map(dirty.map((r) => [toInt(r.hour), toInt(r.mark)]));
  const gen = randomBytes(8).readBigUInt64LE().toString();
  const statements = rebuildStatements(ch);
  // Every hour of the runs is rebuilt. One between marked ones is recorded as built through what
  // it was built through before: the rebuild read all of that and maybe more.
  const hours: number[] = [];
  for (const [lo, hi] of hourRuns([...marks.keys()])) {
    const params = { project_id: projectId, gen, lo_ms: lo * HOUR_MS, hi_ms: hi * HOUR_MS };
    for (const sql of statements) await ch.command(sql, params);
    for (let h = lo; h < hi; h++) hours.push(h);
  }
  const built = await builtThrough(ch, projectId, hours, marks);
  await ch.insert(
    'rollup_hours',
    hours.map((hour) => ({ project_id: projectId, hour, built_at: built.get(hour) ?? 0, gen })),
  );
}

/** The marks read for the refresh; for the other hours, what they were built through. */
async function builtThrough(
  ch: ClickHouseConnection,
  projectId: string,
  hours: readonly number[],
  marks: ReadonlyMap<number, number>,
): Promise<Map<number, number>> {
  const others = hours.filter((h) => !marks.has(h));
  const out = new Map(marks);
  if (others.length === 0) return out;
  const rows = await ch.rows(
    `SELECT hour, max(built_at) AS b FROM ${ch.table('rollup_hours')} WHERE project_id = {p:String} AND hour IN {h:Array(Int64)} GROUP BY hour`,
    { p: projectId, h: others },
  );
  for (const r of rows) out.set(toInt(r.hour), toInt(r.b));
  return out;
}

/**
 * Deletes every superseded generation of a project now, after an erasure's or a retention pass's
 * refresh: none may keep what was erased until the next write to the project, which on a quiet
 * project never comes (issue 43). Safe for reads in flight: a SELECT keeps the parts it started
 * on, and each read picks the newest generation, which stays.
 */
export const purgeSupersededNow = (ch: ClickHouseConnection, projectId: string) => purgeSuperseded(ch, projectId, 0);

/** Deletes generations superseded by one written over `afterMs` ago. */
async function purgeSuperseded(ch: ClickHouseConnection, projectId: string, afterMs: number): Promise<void> {
  const hoursTable = ch.table('rollup_hours');
  const old = await ch.rows(
    `SELECT r.hour AS hour, toString(r.gen) AS gen FROM ${hoursTable} AS r
       INNER JOIN (SELECT hour, max((built_at, gen)) AS top FROM ${hoursTable}
                   WHERE project_id = {p:String} AND written_at < ${NOW_MS} - {after:Int64} GROUP BY hour) AS t
       ON r.hour = t.hour
     WHERE r.project_id = {p:String} AND (r.built_at, r.gen) < t.top`,
    { p: projectId, after: afterMs },
  );
  if (old.length === 0) return;
  // Generations as text: 64-bit integers are read back as JS numbers (clickhouse-connection.ts).
  const params = { p: projectId, h: old.map((r) => toInt(r.hour)), g: old.map((r) => toStr(r.gen)) };
  for (const table of [...GENERATIONAL, 'rollup_hours']) {
    await ch.command(
      `DELETE FROM ${ch.table(table)} WHERE project_id = {p:String}
         AND has(arrayZip({h:Array(Int64)}, {g:Array(String)}), (hour, toString(gen)))`,
      params,
    );
  }
}
