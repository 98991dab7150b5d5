// Columns of `sessions` the embedded store works out from a summary's own when it writes it
// (migration step 15; session-repository.ts), so the stats query reads them as they are: the
// referrer's host and the entry and exit URLs' paths were regular expressions over every session
// of a range at each query (1 M events, ~100,000 sessions: about half of a top-referrers query),
// and the key the stats rollups join sessions on, a hash of the id (rollups.ts, sessionKey).
// Each is a type and an SQL expression over the summary's unqualified columns.
import { PLAIN_SESSION_COLUMNS } from '../stats-query.js';

/** A URL's path as the URL parser gives a page's path ('/' when empty). The group is empty or
 * starts with '/' (the host took every character before), so '/' and the rest of it is that path. */
const urlPath = (column: string) =>
  `CASE WHEN ${column} IS NOT NULL THEN '/' || substr(regexp_extract(${column}, '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*([^?#]*)', 1), 2) END`;

export const DERIVED_SESSION_COLUMNS: Record<string, { type: string; sql: string }> = {
  // The host, as the overview ranks referrers (analytics-repository.ts, referrerHost).
  referrer_host: {
    type: 'VARCHAR',
    sql: `coalesce(nullif(regexp_extract(referrer, '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#:]+)', 1), ''), referrer)`,
  },
  entry_page: { type: 'VARCHAR', sql: urlPath('entry_url') },
  exit_page: { type: 'VARCHAR', sql: urlPath('exit_url') },
  // The id is never NULL here (the primary key), so the key's CASE is not needed.
  session_key: { type: 'UBIGINT', sql: 'hash(session_id)' },
};

/**
 * Each session dimension of the stats query (stats-query.ts) as SQL over the sessions `s`: the
 * query reads it there, and the stats rollups keep a copy (rollups.ts, rollup_stat_sessions).
 */
export const SESSION_DIMENSION_SQL: Record<string, string> = {
  entry_page: 's.entry_page',
  exit_page: 's.exit_page',
  referrer: 's.referrer_host',
  ...PLAIN_SESSION_COLUMNS,
};

const NAMES = Object.keys(DERIVED_SESSION_COLUMNS);

/** `, name, …` for a column list. */
export const DERIVED_LIST = NAMES.map((n) => `, ${n}`).join('');
/** `, expression AS name, …` for a SELECT from the summary's columns. */
export const DERIVED_VALUES = Object.entries(DERIVED_SESSION_COLUMNS)
  .map(([n, c]) => `, ${c.sql} AS ${n}`)
  .join('');
/** `, name = excluded.name, …` for an upsert's SET. */
export const DERIVED_SET = NAMES.map((n) => `, ${n} = excluded.${n}`).join('');

/**
 * Migration step 15: the columns, filled for the sessions stored before. DuckDB alters no table
 * an index depends on, so the session_id index (step 11) is dropped here and made again by step
 * 16: made in the same transaction as the new columns, DuckDB 1.5 aborted the process.
 */
export const ADD_DERIVED_SESSION_COLUMNS = [
  'DROP INDEX sessions_by_session_id',
  ...Object.entries(DERIVED_SESSION_COLUMNS).map(([n, c]) => `ALTER TABLE sessions ADD COLUMN ${n} ${c.type}`),
  `UPDATE sessions SET ${Object.entries(DERIVED_SESSION_COLUMNS)
    .map(([n, c]) => `${n} = ${c.sql}`)
    .join(', ')}`,
];
