// Funnels in DuckDB (issue 18; docs/analytics.md). SQL decides which steps each event of the
// window matches (a bit mask) and hands over, per unit, one sorted list of numbers coding time
// and mask; funnel-tally.ts then walks each list once (first reach of each step, strict or any
// order) and counts. Folding in SQL measured slower on 1 M events (docs/analytics.md, Speed):
// one window pass per step cost ~250 ms CPU each, and list_reduce with a struct of the state
// 1.5 s, against ~150 ms for the grouping and sorting here and a few ms to read the lists from
// DuckDB's vectors.
import { DuckDBDoubleVector, DuckDBListVector, type DuckDBDataChunk } from '@duckdb/node-api';
import { toStr, toStrOrNull } from '../column-values.js';
import type { FunnelCounts, FunnelRepository, FunnelSpec } from '../funnel-query.js';
import { FunnelTooLargeError, MAX_TYPESCRIPT_FUNNEL_EVENTS } from '../funnel-query.js';
import { FunnelTally, STEP_MASK_SPAN, sortCodes, tallyInTypeScript } from '../funnel-tally.js';
import type { EventPredicate, FunnelBreakdown } from '@spoor/schemas';
import { quote, type DuckReader } from './duckdb-connection.js';
import type { Wide } from './duckdb-threads.js';
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

export class DuckDbFunnelRepository implements FunnelRepository {
  constructor(
    private readonly reader: DuckReader,
    private readonly wide: Wide,
  ) {}

  /** On a wide engine: a funnel scans its window's events (duckdb-threads.ts). */
  query(projectId: string, spec: FunnelSpec): Promise<FunnelCounts> {
    const predicates = spec.steps.map((s) => s.predicate);
    return this.wide(() =>
      predicates.every((p): p is EventPredicate => p !== null)
        ? this.inSql(projectId, spec, predicates)
        : this.inTypeScript(projectId, spec),
    );
  }

  private async inSql(projectId: string, spec: FunnelSpec, predicates: EventPredicate[]): Promise<FunnelCounts> {
    const p = new DuckParams([projectId, spec.window.start, spec.window.end]);
    const mask = predicates.map((e, k) => `CASE WHEN ${duckPredicate(e, p)} THEN ${1 << k} ELSE 0 END`).join(' + ');
    const code = `(("timestamp" - $2) * ${STEP_MASK_SPAN} + mask)::DOUBLE`;
    const ev = (extra: string) =>
      `WITH ev AS (SELECT ${UNIT_KEY[spec.unit]} AS u, "timestamp", ${mask} AS mask${extra} ${EVENTS_IN} AND session_id IS NOT NULL)`;
    // With a breakdown every event of the window counts for the unit's first value, not only
    // matching ones; a unit without a step-1 event counts nowhere (and its list would be NULL).
    const sql = spec.breakdown
      ? `${ev(`, event_id, ${quote(BREAKDOWN_COLUMN[spec.breakdown])} AS prop`)}
         SELECT list(${code}) FILTER (WHERE mask <> 0) AS codes, arg_min_null(prop, {'t': "timestamp", 'e': event_id}) AS g
         FROM ev GROUP BY u HAVING bool_or(mask & 1 <> 0)`
      : `${ev('')} SELECT list(${code}) AS codes FROM ev WHERE mask <> 0 GROUP BY u`;
    const tally = new FunnelTally(spec, 'sql');
    for (const chunk of await this.reader.chunks(sql, p.values)) tallyChunk(chunk, tally);
    return tally.counts();
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

/** Each row of a chunk of (codes[, g]): one unit's event codes and breakdown value, read from the vectors. */
function tallyChunk(chunk: DuckDBDataChunk, tally: FunnelTally): void {
  const lists = chunk.getColumnVector(0);
  if (!(lists instanceof DuckDBListVector)) throw new TypeError('funnel codes: expected a list column');
  const child = lists.childVector;
  if (!(child instanceof DuckDBDoubleVector)) throw new TypeError('funnel codes: expected a list of DOUBLE');
  // The lists are never NULL and hold no NULL (the query's WHERE and HAVING).
  const codes = new Float64Array(child.itemCount);
  for (let i = 0; i < codes.length; i++) codes[i] = child.getItem(i)!;
  const groups = chunk.columnCount > 1 ? chunk.getColumnVector(1) : null;
  for (let row = 0; row < chunk.rowCount; row++) {
    const from = lists.getEntryOffset(row);
    const to = from + lists.getEntryLength(row);
    sortCodes(codes, from, to);
    tally.add(codes, from, to, groups ? toStrOrNull(groups.getItem(row)) : null);
  }
}
