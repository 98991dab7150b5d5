import { api, ok } from '../api-access.js';
import { field, h, replace } from '../dom-builder.js';
import type { Page } from '../page-context.js';
import { retentionTable } from '../retention-table.js';

const DAY = 86_400_000;
/** How many cohorts to show, per period: the API allows at most 92 days or 53 weeks. */
const SPANS = { day: [7, 14, 30, 90], week: [4, 8, 12, 26] } as const;

/**
 * Retention (issue 18): GET /v1/retention as a heat-map triangle. The choices live in the URL
 * (`/retention?period=week&cohorts=8&action=signup`), so a view can be reloaded and shared.
 */
export const retentionPage: Page = async (ctx) => {
  const period = ctx.query.get('period') === 'week' ? 'week' : 'day';
  const counts: readonly number[] = SPANS[period];
  const cohorts = counts.includes(Number(ctx.query.get('cohorts'))) ? Number(ctx.query.get('cohorts')) : counts[0]!;
  const action = ctx.query.get('action') ?? '';
  const periodMs = period === 'day' ? DAY : 7 * DAY;
  // The API rounds the start down to its period and ends after the current one: `cohorts` periods, this one included.
  const windowStart = Date.now() - (cohorts - 1) * periodMs;
  const [{ actions }, r] = await Promise.all([
    ok(api().GET('/v1/events/actions', { params: { query: ctx.scope } })),
    ok(
      api().GET('/v1/retention', {
        params: { query: { ...ctx.scope, period, window_start: windowStart, ...(action ? { action } : {}) } },
      }),
    ),
  ]);
  const go = (next: Record<string, string>) => {
    const q = new URLSearchParams({ period, cohorts: String(cohorts), action, ...next });
    if (!q.get('action')) q.delete('action');
    ctx.navigate(`/retention?${q}`);
  };
  const periodPick = h(
    'select',
    { name: 'period', onchange: () => go({ period: periodPick.value, cohorts: '' }) },
    [
      ['day', 'Day'],
      ['week', 'Week (from Monday, UTC)'],
    ].map(([v, l]) => h('option', { value: v, selected: v === period }, l)),
  );
  const countPick = h(
    'select',
    { name: 'cohorts', onchange: () => go({ cohorts: countPick.value }) },
    counts.map((n) => h('option', { value: n, selected: n === cohorts }, `${n} ${period}s`)),
  );
  const actionPick = h(
    'select',
    { name: 'action', onchange: () => go({ action: actionPick.value }) },
    h('option', { value: '' }, 'any event'),
    actions.map((a) => h('option', { value: a.action, selected: a.action === action }, a.action)),
  );
  const empty = r.cohorts.every((c) => c.size === 0);
  replace(
    ctx.main,
    h('h1', { tabindex: -1 }, 'Retention'),
    h(
      'div',
      { class: 'toolbar' },
      field('Cohorts by', periodPick),
      field('Show the last', countPick),
      field('Back with', actionPick),
    ),
    empty ? h('p', { class: 'empty' }, 'No new visitors in these periods.') : retentionTable(r),
  );
};
