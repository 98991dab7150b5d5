// The Overview's headline figures, each with its change from the comparison period (▲/▼).
import { h } from './dom-builder.js';
import { formatCount, formatDuration, formatPercent } from './display-format.js';
import type { Compare } from './overview-view.js';
import type { StatsMetric, StatsQueryResult } from './stats-requests.js';

const FIGURES: Array<[metric: StatsMetric, label: string]> = [
  ['visitors', 'Unique visitors'],
  ['sessions', 'Sessions'],
  ['events', 'Events'],
  ['pageviews', 'Pageviews'],
  ['bounce_rate', 'Bounce rate'],
  ['visit_duration', 'Median duration'],
  ['views_per_session', 'Views per session'],
  ['conversions', 'Conversions'],
  ['conversion_rate', 'Conversion rate'],
];
/** Shares change by their difference (percentage points), the API's `change` for them. */
const SHARES = new Set<StatsMetric>(['bounce_rate', 'conversion_rate']);

function formatMetric(metric: StatsMetric, value: number): string {
  if (SHARES.has(metric)) return formatPercent(value);
  if (metric === 'visit_duration') return formatDuration(value);
  if (metric === 'views_per_session') return (Math.round(value * 100) / 100).toString();
  return formatCount(value);
}

const PERIOD: Record<NonNullable<Compare>, string> = {
  previous_period: 'the previous period',
  year_over_year: 'the same period a year before',
};

/**
 * "▲ 50%", "▼ 2.5 pp" (shares), "new" (nothing before) or "no change"; more bounces read as
 * worse. Screen readers hear the sentence ("up 50% from 2 in the previous period"), not the arrow.
 */
function changeCell(metric: StatsMetric, change: number | null, before: number, compare: NonNullable<Compare>) {
  const was = `${formatMetric(metric, before)} in ${PERIOD[compare]}`;
  let delta: string;
  let said: string;
  let tone = '';
  if (change === null || change === 0) {
    delta = change === 0 ? 'no change' : before === 0 ? 'new' : '—';
    said = `${delta}, ${was}`;
  } else {
    const up = change > 0;
    const size = SHARES.has(metric)
      ? `${formatPercent(Math.abs(change)).replace('%', '')} pp`
      : formatPercent(Math.abs(change));
    delta = `${up ? '▲' : '▼'} ${size}`;
    said = `${up ? 'up' : 'down'} ${size} from ${was}`;
    tone = up !== (metric === 'bounce_rate') ? 'good' : 'bad';
  }
  return h(
    'dd',
    { class: `change ${tone}`, title: was },
    h('span', { class: 'delta', 'aria-hidden': 'true' }, delta),
    h('span', { class: 'sr-only' }, said),
  );
}

/** One figure per metric answered, in the usual order; with a comparison, its change under it. */
export function overviewFigures(r: StatsQueryResult, compare: Compare): HTMLElement {
  const row = r.results[0];
  return h(
    'dl',
    { class: 'figures' },
    FIGURES.filter(([m]) => r.metrics.includes(m)).map(([metric, label]) => {
      const i = r.metrics.indexOf(metric);
      const value = row?.metrics[i] ?? 0;
      const cmp = row?.comparison;
      return h(
        'div',
        { class: 'figure', 'data-metric': metric },
        h('dt', {}, label),
        h('dd', { class: 'value' }, formatMetric(metric, value)),
        compare && cmp ? changeCell(metric, cmp.change[i] ?? null, cmp.metrics[i] ?? 0, compare) : null,
      );
    }),
  );
}
