// The stats query in ClickHouse SQL (issue 44; the plan: stats-query.ts). Events and sessions are
// ReplacingMergeTrees, so each is read under FINAL, as the overview reads them.
import {
  PLAIN_SESSION_COLUMNS,
  StatsPatternError,
  hasPattern,
  statsSql,
  toStatsRows,
  type StatsDialect,
  type StatsRepository,
  type StatsRows,
  type StatsSpec,
} from '../stats-query.js';
import type { ClickHouseConnection, Params } from './clickhouse-connection.js';

const pagePath = (col: string) =>
  `if(${col} IS NULL, NULL, coalesce(nullif(extract(assumeNotNull(${col}), '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*([^?#]*)'), ''), '/'))`;

const SESSION_COLUMNS: Record<string, string> = {
  entry_page: pagePath('s.entry_url'),
  exit_page: pagePath('s.exit_url'),
  // The host, as the overview ranks referrers (analytics-repository.ts).
  referrer: `if(domain(s.referrer) = '', s.referrer, domain(s.referrer))`,
  ...PLAIN_SESSION_COLUMNS,
};

function dialect(ch: ClickHouseConnection, params: Params): StatsDialect {
  const bind = (v: unknown, type: string) => {
    const name = `v${Object.keys(params).length}`;
    params[name] = v;
    return `{${name}:${type}}`;
  };
  return {
    bind: (v, type) => bind(v, type),
    bindList: (v) => bind(v, 'Array(String)'),
    events: `${ch.table('enriched_events')} AS e FINAL`,
    sessions: (p) => `(SELECT * FROM ${ch.table('sessions')} FINAL WHERE project_id = ${p})`,
    // A fact per (tag, session, source): the newest decides whether it stands (tag-repository.ts).
    tags: (p) => `(SELECT session_id, tag FROM (
        SELECT tag, session_id, argMax(removed, (changed_at, _written)) AS removed
        FROM ${ch.table('session_tag_facts')} WHERE project_id = ${p} GROUP BY tag, session_id, source)
      WHERE NOT removed GROUP BY session_id, tag)`,
    sessionColumn: (d) => SESSION_COLUMNS[d]!,
    payload: (path) => {
      const keys = path.map((k) => bind(k, 'String')).join(', ');
      return `multiIf(JSONType(e.payload, ${keys}) = 'String', JSONExtractString(e.payload, ${keys}),
        JSONType(e.payload, ${keys}) IN ('Null', 'Undefined') OR NOT isValidJSON(e.payload), NULL, JSONExtractRaw(e.payload, ${keys}))`;
    },
    // Not assumeNotNull: what it answers for a NULL is undefined (a CASE's NULL kept the path).
    text: (expr) => `nullIf(CAST(${expr} AS Nullable(String)), '')`,
    contains: (expr, v) => `position(${expr}, ${bind(v, 'String')}) > 0`,
    matches: (expr, v) => `match(${expr}, ${bind(v, 'String')})`,
    orFalse: (cond) => `ifNull(${cond}, 0)`,
    intDiv: (a, b) => `intDiv(${a}, ${b})`,
    visitors: 'uniqExact(ip, user_agent)',
    countIf: (cond) => `countIf(${cond})`,
    median: (expr) => `quantileExactInclusive(0.5)(toFloat64(${expr}))`,
    hasAction: (param) => `mapContains(s.actions, ${param})`,
    keyOf: (cols) => `concatWithSeparator(char(31), ${cols.map((c) => `toString(${c})`).join(', ')})`,
    inList: (key, list) => `has(${list}, ${key})`,
  };
}

export class ClickHouseStatsRepository implements StatsRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  async query(projectId: string, spec: StatsSpec): Promise<StatsRows> {
    const answer = toStatsRows(spec, await this.run(projectId, spec));
    if (answer.rows.length === 0 && spec.offset > 0)
      answer.total = toStatsRows(spec, await this.run(projectId, { ...spec, offset: 0, limit: 1 })).total;
    return answer;
  }

  private async run(projectId: string, spec: StatsSpec): Promise<Array<Record<string, unknown>>> {
    const params: Params = {};
    // The events always (no `rollups` in the dialect): the stats rollups are the embedded store's.
    const { sql } = statsSql(dialect(this.ch, params), projectId, spec);
    try {
      return await this.ch.rows(`${sql} SETTINGS join_use_nulls = 0`, params);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (hasPattern(spec) && /CANNOT_COMPILE_REGEXP|re2|regular expression|regexp/i.test(message))
        throw new StatsPatternError(message);
      throw err;
    }
  }
}
