// Funnels and retention for people: the tables `spoor funnel` and `spoor retention` print on a
// terminal (with --json, or piped, the server's answer is printed instead).
import type { components } from '@spoor/client';
import type { CliOutput, Column } from './cli-output.js';

type FunnelResult = components['schemas']['FunnelResult'];
type StepResult = components['schemas']['FunnelStepResult'];
type RetentionResult = components['schemas']['RetentionResult'];

const DAY_MS = 86_400_000;

/** 0.3333 → "33.3%"; null (a share of nothing, or the last step) → "-". */
export const percent = (share: number | null | undefined): string | null =>
  share === null || share === undefined ? null : `${Math.round(share * 1000) / 10}%`;

/** A length of time as people read it: "850ms", "12s", "3m 20s", "1h", "2h 5m", "1d 3h". */
export function shortDuration(ms: number | null): string | null {
  if (ms === null) return null;
  if (ms < 1000) return `${ms}ms`;
  const s = Math.round(ms / 1000);
  const two = (big: number, bigUnit: string, small: number, smallUnit: string) =>
    `${big}${bigUnit}${small ? ` ${small}${smallUnit}` : ''}`;
  if (s < 60) return `${s}s`;
  if (s < 3600) return two(Math.floor(s / 60), 'm', s % 60, 's');
  if (s < 86_400) return two(Math.floor(s / 3600), 'h', Math.floor((s % 3600) / 60), 'm');
  return two(Math.floor(s / 86_400), 'd', Math.floor((s % 86_400) / 3600), 'h');
}

const stepColumns: Array<Column<StepResult & { index: number }>> = [
  { header: '#', value: (r) => r.index },
  { header: 'step', value: (r) => r.name },
  { header: 'entered', value: (r) => r.entered },
  { header: 'converted', value: (r) => r.converted },
  { header: 'from previous', value: (r) => percent(r.conversion_from_previous) },
  { header: 'from first', value: (r) => percent(r.conversion_from_first) },
  { header: 'median to next', value: (r) => shortDuration(r.median_ms_to_next) },
];

const numbered = (steps: StepResult[]) => steps.map((s, i) => ({ ...s, index: i + 1 }));

/** The funnel: what was counted, a table of its steps, then one per breakdown value. */
export function funnelReport(out: CliOutput, r: FunnelResult): string {
  const order = r.order === 'strict' ? 'in order' : 'in any order';
  const head = `${r.unit}s, ${order}, within ${shortDuration(r.conversion_window_ms)} of the first step; ${out.time(r.window_start)} to ${out.time(r.window_end)} (evaluated in ${r.evaluated_in})`;
  const parts = [head, '', out.table(numbered(r.steps), stepColumns)];
  for (const g of r.breakdown?.groups ?? []) {
    parts.push('', `${r.breakdown!.property} = ${g.value ?? '(unknown)'}`, out.table(numbered(g.steps), stepColumns));
  }
  return parts.join('\n');
}

/** A cohort's start as a UTC date: periods are UTC days and ISO weeks, whatever the local zone. */
const cohortLabel = (start: number, period: 'day' | 'week') =>
  `${period === 'week' ? 'week of ' : ''}${new Date(start).toISOString().slice(0, 10)}`;

/**
 * The cohort triangle: a row per cohort (its first period and size), a column per later period
 * with the share of the cohort back then; periods not yet reached are left blank ("-").
 */
export function retentionReport(out: CliOutput, r: RetentionResult): string {
  const periods = Math.max(0, ...r.cohorts.map((c) => c.shares.length));
  const unit = r.period_ms === DAY_MS ? 'day' : 'week';
  type Cohort = RetentionResult['cohorts'][number];
  const columns: Array<Column<Cohort>> = [
    { header: 'cohort', value: (c) => cohortLabel(c.start, r.period) },
    { header: 'size', value: (c) => c.size },
    ...Array.from({ length: periods }, (_, k): Column<Cohort> => ({
      header: `${unit} ${k}`,
      value: (c) => (c.size === 0 ? null : percent(c.shares[k])),
    })),
  ];
  const returning = r.action ? ` (returning: an event of action ${r.action})` : '';
  return [
    `visitors by the ${r.period} first seen, share back in each later ${r.period}${returning}`,
    '',
    out.table(r.cohorts, columns),
  ].join('\n');
}
