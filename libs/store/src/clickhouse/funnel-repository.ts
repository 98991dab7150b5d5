// Funnels in ClickHouse SQL (issue 18; docs/analytics.md): the DuckDB repository's formulation
// in ClickHouse's window functions, so both engines answer the same. windowFunnel() is not used:
// it answers only the deepest step a unit reached, not when each step was first reached (the
// medians need that), and its 'strict_increase' mode compares against the latest chain only, so
// events in the same millisecond would count differently from DuckDB.
import { ENRICHED_EVENT_COLUMNS } from '../event-row.js';
import { toStr, toStrOrNull } from '../column-values.js';
import type { FunnelCounts, FunnelRepository, FunnelSpec } from '../funnel-query.js';
import { FunnelTooLargeError, MAX_TYPESCRIPT_FUNNEL_EVENTS } from '../funnel-query.js';
import { emptyCounts, rankGroups, stepCountsOfRow, tallyInTypeScript } from '../funnel-tally.js';
import { FUNNEL_LIMITS, type EventPredicate, type FunnelBreakdown } from '@spoor/schemas';
import type { ClickHouseConnection, Params } from './clickhouse-connection.js';
import { ChParams, chPredicate } from './event-predicate-sql.js';

const BREAKDOWN_COLUMN: Record<FunnelBreakdown, string> = {
  browser: 'browser_name',
  country: 'geo_country',
  utm_source: 'utm_source',
  entry_page: 'path',
};
const UNIT_KEY = { session: 'assumeNotNull(session_id)', visitor: 'cityHash64(ip, user_agent)' } as const;
const UNIT_TEXT = { session: 'assumeNotNull(session_id)', visitor: `concat(ip, char(31), user_agent)` } as const;
const ENRICHED_LIST = ENRICHED_EVENT_COLUMNS.join(', ');

function msLiteral(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError(`not a whole number of ms: ${ms}`);
  return String(ms);
}

export class ClickHouseFunnelRepository implements FunnelRepository {
  constructor(private readonly ch: ClickHouseConnection) {}

  private eventsIn(): string {
    return `FROM ${this.ch.table('enriched_events')} FINAL
      WHERE project_id = {project_id:String} AND timestamp >= {start:Int64} AND timestamp < {end:Int64} AND NOT bot AND session_id IS NOT NULL`;
  }

  query(projectId: string, spec: FunnelSpec): Promise<FunnelCounts> {
    const predicates = spec.steps.map((s) => s.predicate);
    return predicates.every((p): p is EventPredicate => p !== null)
      ? this.inSql(projectId, spec, predicates)
      : this.inTypeScript(projectId, spec);
  }

  private base(projectId: string, spec: FunnelSpec): Params {
    return { project_id: projectId, start: spec.window.start, end: spec.window.end };
  }

  private async inSql(projectId: string, spec: FunnelSpec, predicates: EventPredicate[]): Promise<FunnelCounts> {
    const p = new ChParams(this.base(projectId, spec));
    const n = predicates.length;
    const ks = Array.from({ length: n }, (_, k) => k + 1);
    const steps = predicates.map((e, k) => `toUInt8(${chPredicate(e, p)}) AS s${k + 1}`).join(', ');
    const prop = spec.breakdown ? `, event_id, ${BREAKDOWN_COLUMN[spec.breakdown]} AS prop` : '';
    const firsts = ks.map((k) => `min(if(b${k} IS NOT NULL, t, NULL)) AS t${k}`).join(', ');
    const counts = ks
      .map((k) => `count(t${k}) AS e${k}`)
      .concat(ks.slice(1).map((k) => `quantileExactInclusive(0.5)(toFloat64(t${k} - t${k - 1})) AS m${k - 1}`))
      .join(', ');
    const group = spec.breakdown
      ? {
          join: 'LEFT JOIN firsts USING (u)',
          select: 'g, grouping(g) AS total,',
          by: 'GROUP BY GROUPING SETS ((), (g))',
        }
      : { join: '', select: '1 AS total,', by: '' };
    const sql = `WITH ev AS (SELECT ${UNIT_KEY[spec.unit]} AS u, timestamp AS t, ${steps}${prop} ${this.eventsIn()}),
      m AS (SELECT * FROM ev WHERE ${ks.map((k) => `s${k}`).join(' OR ')}),
      ${this.levels(spec, n)},
      per AS (SELECT u, ${firsts} FROM lv GROUP BY u),
      firsts AS (${spec.breakdown ? 'SELECT u, tupleElement(min(tuple(t, event_id, prop)), 3) AS g FROM ev GROUP BY u' : 'SELECT 1 AS u'})
      SELECT ${group.select} ${counts} FROM per ${group.join} WHERE t1 IS NOT NULL ${group.by}
      SETTINGS join_use_nulls = 1`;
    const rows = await this.ch.rows(sql, p.values);
    const total = rows.find((r) => Number(r.total) === 1);
    return {
      evaluatedIn: 'sql',
      total: total ? stepCountsOfRow(total, n) : emptyCounts(n),
      groups: spec.breakdown
        ? rankGroups(
            rows
              .filter((r) => Number(r.total) === 0)
              .map((r) => ({ value: toStrOrNull(r.g), steps: stepCountsOfRow(r, n) })),
            FUNNEL_LIMITS.maxGroups,
          )
        : [],
    };
  }

  private levels(spec: FunnelSpec, n: number): string {
    const w = msLiteral(spec.conversionWindowMs);
    if (spec.order === 'any') {
      const present = Array.from({ length: n }, (_, k) => `max(s${k + 1}) OVER w AS p${k + 1}`).join(', ');
      const reach = Array.from(
        { length: n },
        (_, k) => `if(${Array.from({ length: k + 1 }, (_, j) => `p${j + 1} = 1`).join(' AND ')}, t, NULL) AS b${k + 1}`,
      ).join(', ');
      return `pr AS (SELECT u, t, ${present} FROM m WINDOW w AS (PARTITION BY u ORDER BY t RANGE BETWEEN ${w} PRECEDING AND CURRENT ROW)),
        lv AS (SELECT u, t, ${reach} FROM pr)`;
    }
    const ctes = ['l1 AS (SELECT *, if(s1 = 1, toNullable(t), NULL) AS b1 FROM m)'];
    for (let k = 2; k <= n; k++) {
      ctes.push(`l${k}w AS (SELECT *, max(b${k - 1}) OVER (PARTITION BY u ORDER BY t RANGE BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS p${k} FROM l${k - 1}),
        l${k} AS (SELECT *, if(s${k} = 1 AND p${k} IS NOT NULL AND t - p${k} <= ${w}, p${k}, NULL) AS b${k} FROM l${k}w)`);
    }
    ctes.push(`lv AS (SELECT * FROM l${n})`);
    return ctes.join(',\n');
  }

  private async inTypeScript(projectId: string, spec: FunnelSpec): Promise<FunnelCounts> {
    const p = new ChParams(this.base(projectId, spec));
    const filter = spec.steps.map((s) => chPredicate(s.prefilter, p)).join(' OR ');
    const rows = await this.ch.rows(
      `SELECT ${UNIT_TEXT[spec.unit]} AS funnel_unit, ${ENRICHED_LIST} ${this.eventsIn()} AND (${filter})
       ORDER BY funnel_unit, timestamp, event_id LIMIT ${MAX_TYPESCRIPT_FUNNEL_EVENTS + 1}`,
      p.values,
    );
    if (rows.length > MAX_TYPESCRIPT_FUNNEL_EVENTS) throw new FunnelTooLargeError(MAX_TYPESCRIPT_FUNNEL_EVENTS);
    const groupOf = spec.breakdown ? await this.firstValues(projectId, spec) : null;
    return tallyInTypeScript(rows, spec, groupOf);
  }

  private async firstValues(projectId: string, spec: FunnelSpec): Promise<Map<string, string | null>> {
    const rows = await this.ch.rows(
      `SELECT ${UNIT_TEXT[spec.unit]} AS funnel_unit, tupleElement(min(tuple(timestamp, event_id, ${BREAKDOWN_COLUMN[spec.breakdown!]})), 3) AS g
       ${this.eventsIn()} GROUP BY funnel_unit`,
      this.base(projectId, spec),
    );
    return new Map(rows.map((r) => [toStr(r.funnel_unit), toStrOrNull(r.g)]));
  }
}
