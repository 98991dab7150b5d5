// The stats query in DuckDB SQL (issue 44; the plan: stats-query.ts) over the events and sessions
// tables, and, where the plan allows, the stats rollups (rollups.ts) for the window's whole hours:
// at 1 M events the visitors of a month counted from the events (a hash of two strings an event)
// took 64–96 ms a query alone; the rollups hold each hour's (session, visitor) once.
import {
  StatsPatternError,
  hasPattern,
  statsSql,
  toStatsRows,
  type StatsDialect,
  type StatsRepository,
  type StatsRows,
  type StatsSpec,
} from '../stats-query.js';
import type { DuckDbConnection, DuckReader, Param } from './duckdb-connection.js';
import type { Wide } from './duckdb-threads.js';
import { STATS_SESSION_DIM, VISITOR_KEY, refreshRollups, sessionKey } from './rollups.js';
import { SESSION_DIMENSION_SQL } from './session-derived.js';

/** RFC 6901 JSON pointer of a path of keys. */
const pointer = (path: string[]) => `/${path.map((s) => s.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

function dialect(params: Param[]): StatsDialect {
  const bind = (v: Param) => {
    params.push(v);
    return `$${params.length}`;
  };
  return {
    bind: (v) => bind(v),
    bindList: (v) => bind(v),
    events: 'enriched_events AS e',
    sessions: (p) => `(SELECT * FROM sessions WHERE project_id = ${p})`,
    tags: (p) => `(SELECT DISTINCT session_id, tag FROM session_tag_facts WHERE project_id = ${p} AND NOT removed)`,
    sessionColumn: (d) => SESSION_DIMENSION_SQL[d]!,
    // Strings as themselves; numbers, booleans, objects as their JSON text.
    payload: (path) => {
      const at = bind(pointer(path));
      return `CASE WHEN json_type(e.payload, ${at}) = 'VARCHAR' THEN json_extract_string(e.payload, ${at})
        WHEN json_type(e.payload, ${at}) <> 'NULL' THEN json_extract(e.payload, ${at})::VARCHAR END`;
    },
    text: (expr) => `nullif(${expr}, '')`,
    contains: (expr, v) => `contains(${expr}, ${bind(v)})`,
    matches: (expr, v) => `regexp_matches(${expr}, ${bind(v)})`,
    orFalse: (cond) => `coalesce(${cond}, false)`,
    intDiv: (a, b) => `((${a}) // ${b})`,
    visitors: `count(DISTINCT ${VISITOR_KEY})`,
    countIf: (cond) => `count(*) FILTER (WHERE ${cond})`,
    median: (expr) => `quantile_cont(${expr}, 0.5)`,
    hasAction: (param) => `list_contains(json_keys(s.actions), ${param})`,
    keyOf: (cols) => `concat_ws(chr(31), ${cols.map((c) => `${c}::VARCHAR`).join(', ')})`,
    inList: (key, list) => `list_contains(${list}, ${key})`,
    rollups: {
      sessions: 'rollup_stat_sessions',
      pages: 'rollup_stat_pages',
      visitor: 'hash(e.ip, e.user_agent)',
      sessionKey,
      sessionKeyColumn: 'session_key',
      sessionDimension: STATS_SESSION_DIM,
      freshCounts: 'rollup_stat_fresh',
    },
    hashKey: (expr) => `hash(${expr})`,
  };
}

export class DuckDbStatsRepository implements StatsRepository {
  constructor(
    private readonly reader: DuckReader,
    private readonly wide: Wide,
    /** The writer, whose hold a rollup refresh takes (rollups.ts). */
    private readonly writer: DuckDbConnection,
  ) {}

  query(projectId: string, spec: StatsSpec): Promise<StatsRows> {
    return this.wide(async () => {
      const answer = toStatsRows(spec, await this.run(projectId, spec));
      // Past the last row the window count has no row to ride on: count once more from the start.
      if (answer.rows.length === 0 && spec.offset > 0)
        answer.total = toStatsRows(spec, await this.run(projectId, { ...spec, offset: 0, limit: 1 })).total;
      return answer;
    });
  }

  private async run(projectId: string, spec: StatsSpec): Promise<Array<Record<string, unknown>>> {
    const params: Param[] = [];
    const { sql, rollups } = statsSql(dialect(params), projectId, spec);
    if (rollups) await refreshRollups((fn) => this.writer.exclusive(fn), projectId);
    try {
      return await this.reader.all(sql, params);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      // RE2's refusals come as "Invalid Input Error: invalid repetition size: {2000}" and the like.
      if (hasPattern(spec) && /^Invalid Input Error/.test(message)) throw new StatsPatternError(message);
      throw err;
    }
  }
}
