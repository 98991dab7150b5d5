// Funnels in DuckDB SQL (issue 18; docs/analytics.md). Strict order: one window pass per step,
// each carrying the latest start that reached the step before (a RANGE frame ending 1 ms
// before the row, so a step needs a strictly earlier event); any order: one pass in which a
// RANGE frame of the conversion window says which steps occurred in it. Then per unit the first
// time each step was reached, and per group the counts and medians (GROUPING SETS: the total
// and each breakdown value in one scan).
import { toStr, toStrOrNull } from '../column-values.js';
import type { FunnelCounts, FunnelRepository, FunnelSpec } from '../funnel-query.js';
import { FunnelTooLargeError, MAX_TYPESCRIPT_FUNNEL_EVENTS } from '../funnel-query.js';
import { emptyCounts, rankGroups, stepCountsOfRow, tallyInTypeScript } from '../funnel-tally.js';
import { FUNNEL_LIMITS, type EventPredicate, type FunnelBreakdown } from '@spoor/schemas';
import { quote, type DuckReader } from './duckdb-connection.js';
import { DuckParams, duckPredicate } from './event-predicate-sql.js';
import { ENRICHED_EVENT_COLUMNS } from '../event-row.js';

const BREAKDOWN_COLUMN: Record<FunnelBreakdown, string> = {
  browser: 'browser_name',
  country: 'geo_country',
  utm_source: 'utm_source',
  entry_page: 'path',
};
const EVENTS_IN = `FROM enriched_events WHERE project_id = $1 AND "timestamp" >= $2 AND "timestamp" < $3 AND NOT bot`;
// 64-bit hashes partition faster than text ids (two of ~10^5 units of a window colliding: ~10^-9).
const UNIT_KEY = { session: 'hash(session_id)', visitor: 'hash(ip, user_agent)' } as const;
const UNIT_TEXT = { session: 'session_id', visitor: `ip || chr(31) || user_agent` } as const;
const ENRICHED_LIST = ENRICHED_EVENT_COLUMNS.map(quote).join(', ');

/** An integer of ms written into SQL (a RANGE frame's offset must be a constant). */
function msLiteral(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError(`not a whole number of ms: ${ms}`);
  return String(ms);
}

export class DuckDbFunnelRepository implements FunnelRepository {
  constructor(private readonly reader: DuckReader) {}

  query(projectId: string, spec: FunnelSpec): Promise<FunnelCounts> {
    const predicates = spec.steps.map((s) => s.predicate);
    return predicates.every((p): p is EventPredicate => p !== null)
      ? this.inSql(projectId, spec, predicates)
      : this.inTypeScript(projectId, spec);
  }

  private async inSql(projectId: string, spec: FunnelSpec, predicates: EventPredicate[]): Promise<FunnelCounts> {
    const p = new DuckParams([projectId, spec.window.start, spec.window.end]);
    const n = predicates.length;
    const steps = predicates.map((e, k) => `${duckPredicate(e, p)} AS s${k + 1}`).join(', ');
    const prop = spec.breakdown ? `, event_id, ${quote(BREAKDOWN_COLUMN[spec.breakdown])} AS prop` : '';
    const ks = Array.from({ length: n }, (_, k) => k + 1);
    const firsts = ks.map((k) => `min(t) FILTER (WHERE b${k} IS NOT NULL) AS t${k}`).join(', ');
    const counts = ks
      .map((k) => `count(t${k}) AS e${k}`)
      .concat(ks.slice(1).map((k) => `quantile_cont(t${k} - t${k - 1}, 0.5) AS m${k - 1}`))
      .join(', ');
    const group = spec.breakdown
      ? {
          join: 'LEFT JOIN firsts USING (u)',
          select: 'g, grouping(g) AS total,',
          by: 'GROUP BY GROUPING SETS ((), (g))',
        }
      : { join: '', select: '1 AS total,', by: '' };
    const sql = `WITH ev AS (
        SELECT ${UNIT_KEY[spec.unit]} AS u, "timestamp" AS t, ${steps}${prop} ${EVENTS_IN} AND session_id IS NOT NULL),
      m AS (SELECT * FROM ev WHERE ${ks.map((k) => `s${k}`).join(' OR ')}),
      ${this.levels(spec, n)},
      per AS (SELECT u, ${firsts} FROM lv GROUP BY u),
      firsts AS (${spec.breakdown ? `SELECT u, arg_min_null(prop, {'t': t, 'e': event_id}) AS g FROM ev GROUP BY u` : 'SELECT 1 AS u'})
      SELECT ${group.select} ${counts} FROM per ${group.join} WHERE t1 IS NOT NULL ${group.by}`;
    const rows = await this.reader.all(sql, p.values);
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

  /** The CTEs ending in `lv`: per matching event, b<k> = the start it reached step k from (NULL: not reached). */
  private levels(spec: FunnelSpec, n: number): string {
    const w = msLiteral(spec.conversionWindowMs);
    if (spec.order === 'any') {
      const present = Array.from({ length: n }, (_, k) => `bool_or(s${k + 1}) OVER w AS p${k + 1}`).join(', ');
      const reach = Array.from(
        { length: n },
        (_, k) =>
          `CASE WHEN ${Array.from({ length: k + 1 }, (_, j) => `p${j + 1}`).join(' AND ')} THEN t END AS b${k + 1}`,
      ).join(', ');
      return `pr AS (SELECT u, t, ${present} FROM m WINDOW w AS (PARTITION BY u ORDER BY t RANGE BETWEEN ${w} PRECEDING AND CURRENT ROW)),
        lv AS (SELECT u, t, ${reach} FROM pr)`;
    }
    const ctes = ['l1 AS (SELECT *, CASE WHEN s1 THEN t END AS b1 FROM m)'];
    for (let k = 2; k <= n; k++) {
      const prev = `max(b${k - 1}) OVER w`;
      ctes.push(`l${k} AS (SELECT *, CASE WHEN s${k} AND t - ${prev} <= ${w} THEN ${prev} END AS b${k} FROM l${k - 1}
        WINDOW w AS (PARTITION BY u ORDER BY t RANGE BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING))`);
    }
    ctes.push(`lv AS (SELECT * FROM l${n})`);
    return ctes.join(',\n');
  }

  /** Candidate events by SQL (the steps' pre-filters), then json-logic-js and firstReaches per unit. */
  private async inTypeScript(projectId: string, spec: FunnelSpec): Promise<FunnelCounts> {
    const p = new DuckParams([projectId, spec.window.start, spec.window.end]);
    const filter = spec.steps.map((s) => duckPredicate(s.prefilter, p)).join(' OR ');
    const rows = await this.reader.all(
      `SELECT ${UNIT_TEXT[spec.unit]} AS funnel_unit, ${ENRICHED_LIST} ${EVENTS_IN} AND session_id IS NOT NULL AND (${filter})
       ORDER BY funnel_unit, "timestamp", event_id LIMIT ${MAX_TYPESCRIPT_FUNNEL_EVENTS + 1}`,
      p.values,
    );
    if (rows.length > MAX_TYPESCRIPT_FUNNEL_EVENTS) throw new FunnelTooLargeError(MAX_TYPESCRIPT_FUNNEL_EVENTS);
    const groupOf = spec.breakdown ? await this.firstValues(projectId, spec) : null;
    return tallyInTypeScript(rows, spec, groupOf);
  }

  private async firstValues(projectId: string, spec: FunnelSpec): Promise<Map<string, string | null>> {
    const rows = await this.reader.all(
      `SELECT ${UNIT_TEXT[spec.unit]} AS funnel_unit, arg_min_null(${quote(BREAKDOWN_COLUMN[spec.breakdown!])}, {'t': "timestamp", 'e': event_id}) AS g
       ${EVENTS_IN} AND session_id IS NOT NULL GROUP BY funnel_unit`,
      [projectId, spec.window.start, spec.window.end],
    );
    return new Map(rows.map((r) => [toStr(r.funnel_unit), toStrOrNull(r.g)]));
  }
}
