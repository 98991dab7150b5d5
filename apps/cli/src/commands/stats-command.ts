// The stats query (issue 44): `spoor stats`, POST /v1/stats/query as a table or JSON.
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { components } from '@spoor/client';
import { unwrap } from '../api-result.js';
import { percent, shortDuration } from '../analytics-report.js';
import { UsageError } from '../cli-errors.js';
import type { CliOutput, Column } from '../cli-output.js';
import { act, commaList, intOption, type SessionFactory } from '../command-action.js';
import { withWindow, type WindowOptions } from './window-options.js';

type StatsRequest = components['schemas']['StatsQueryRequest'];
type StatsResult = components['schemas']['StatsQueryResult'];
type StatsRow = StatsResult['results'][number];
type Predicate = components['schemas']['StatsPredicate'];

const OPS = ['is', 'is_not', 'contains', 'matches'] as const;
const PRESETS = ['today', '24h', '7d', '30d', 'month', '6mo', '12mo'] as const;
const SHARES = new Set(['bounce_rate', 'conversion_rate']);

interface StatsOptions extends WindowOptions {
  metrics: string;
  dimensions?: string;
  filter: Predicate[];
  range?: (typeof PRESETS)[number];
  compare?: 'previous' | 'year';
  goalAction?: string;
  goalTag?: string;
  order: Array<[string, 'asc' | 'desc']>;
  limit?: number;
  offset?: number;
}

/**
 * `--filter "country is DE,FR"`: a dimension, an operator and values (comma-separated; a
 * `matches` pattern is taken whole). Several --filter options must all hold.
 */
function parseFilter(text: string, previous: Predicate[] = []): Predicate[] {
  const m = /^\s*(\S+)\s+(\S+)\s+(.+?)\s*$/.exec(text);
  const op = m?.[2] as (typeof OPS)[number] | undefined;
  if (!m || !op || !OPS.includes(op))
    throw new InvalidArgumentError(
      `a filter is "<dimension> <${OPS.join('|')}> <values>", such as "country is DE,FR"; got ${JSON.stringify(text)}`,
    );
  const values = op === 'matches' ? [m[3]!] : (commaList(m[3]) ?? []);
  return [...previous, { dimension: m[1]!, op, values }];
}

function parseOrder(text: string, previous: Array<[string, 'asc' | 'desc']> = []): Array<[string, 'asc' | 'desc']> {
  const [name, dir = 'desc'] = text.split(':');
  if (!name || (dir !== 'asc' && dir !== 'desc'))
    throw new InvalidArgumentError(`--order is <metric or dimension>[:asc|:desc], got ${JSON.stringify(text)}`);
  return [...previous, [name, dir]];
}

/** The request the options describe (scope added by the caller). */
function statsRequest(o: StatsOptions, now = Date.now()): Omit<StatsRequest, 'origin' | 'project'> {
  if (o.range && o.since !== undefined) throw new UsageError('give --range or --since/--until, not both');
  if (o.goalAction && o.goalTag) throw new UsageError('give --goal-action or --goal-tag, not both');
  if (o.until !== undefined && o.since === undefined) throw new UsageError('--until needs --since');
  const date_range = o.since !== undefined ? { start: o.since, end: o.until ?? now } : (o.range ?? '7d');
  return {
    metrics: (commaList(o.metrics) ?? []) as StatsRequest['metrics'],
    dimensions: commaList(o.dimensions) ?? [],
    filters: o.filter,
    date_range,
    compare: o.compare === 'previous' ? 'previous_period' : o.compare === 'year' ? 'year_over_year' : null,
    goal: o.goalAction ? { action: o.goalAction } : o.goalTag ? { tag: o.goalTag } : null,
    ...(o.order.length ? { order_by: o.order } : {}),
    limit: o.limit ?? 100,
    offset: o.offset ?? 0,
  };
}

function shown(metric: string, v: number): string | null {
  if (SHARES.has(metric)) return percent(v);
  if (metric === 'visit_duration') return shortDuration(v);
  return String(Math.round(v * 100) / 100);
}

function changeText(metric: string, v: number | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  const sign = v > 0 ? '+' : '';
  return SHARES.has(metric) ? `${sign}${Math.round(v * 1000) / 10} pt` : `${sign}${Math.round(v * 1000) / 10}%`;
}

function statsReport(out: CliOutput, r: StatsResult): string {
  const columns: Array<Column<StatsRow>> = [
    ...r.dimensions.map((d, i): Column<StatsRow> => ({
      header: d,
      value: (row) => (d.startsWith('time') ? out.time(row.dimensions[i]) : row.dimensions[i]),
    })),
    ...r.metrics.flatMap((m, i): Array<Column<StatsRow>> => [
      { header: m, value: (row) => shown(m, row.metrics[i]!) },
      ...(r.compare_range
        ? [{ header: 'change', value: (row: StatsRow) => changeText(m, row.comparison?.change[i]) }]
        : []),
    ]),
  ];
  const range = `${out.time(r.date_range.start)} to ${out.time(r.date_range.end)}`;
  const versus = r.compare_range
    ? `, compared with ${out.time(r.compare_range.start)} to ${out.time(r.compare_range.end)}`
    : '';
  const more =
    r.total_rows > r.offset + r.results.length
      ? `\n(rows ${r.offset + 1}–${r.offset + r.results.length} of ${r.total_rows}; --offset for more)`
      : '';
  return `${range}${versus}\n${out.table(r.results, columns)}${more}`;
}

export function registerStatsCommand(program: Command, make: SessionFactory): void {
  withWindow(
    program
      .command('stats')
      .description('metrics by dimensions over a date range: figures, a time series (--dimensions time) or top lists')
      .option(
        '--metrics <list>',
        'visitors,sessions,events,pageviews,bounce_rate,visit_duration,views_per_session,conversions,conversion_rate',
        'visitors,sessions,events,bounce_rate',
      )
      .option(
        '--dimensions <list>',
        'time, time:hour|day|week, page, entry_page, exit_page, referrer, utm_*, country, region, city, browser, os, device, action, tag, payload:<path>',
      )
      .option(
        '--filter <filter>',
        'repeatable, all must hold: "<dimension> <is|is_not|contains|matches> <values>"',
        parseFilter,
        [],
      )
      .addOption(new Option('--range <preset>', 'a date range ending now (UTC; default 7d)').choices(PRESETS))
      .addOption(
        new Option('--compare <period>', 'also the previous period, or the same period a year before').choices([
          'previous',
          'year',
        ]),
      )
      .option('--goal-action <action>', 'conversions: sessions with an event of this action')
      .option('--goal-tag <tag>', 'conversions: sessions carrying this tag')
      .option('--order <name[:dir]>', 'repeatable: a metric or dimension, asc or desc (default desc)', parseOrder, [])
      .option('--limit <n>', 'rows (default 100)', intOption('--limit'))
      .option('--offset <n>', 'rows to skip', intOption('--offset')),
  ).action(
    act(make, async (s, o: StatsOptions) => {
      const body = { ...(await s.scope()), ...statsRequest(o) } as StatsRequest;
      const result = unwrap(await (await s.client()).POST('/v1/stats/query', { body }));
      s.out.result(result, () => statsReport(s.out, result));
    }),
  );
}
