// The Overview (issue 44; docs/dashboard.md): traffic of any range as it arrives, from the stats
// API (POST /v1/stats/query), no aggregation job needed. Every panel row filters the whole page;
// range, comparison, filters and goal live in the URL. Stored overviews are the Reports page's.
import { api, ok } from '../api-access.js';
import { h, replace } from '../dom-builder.js';
import { formatCount, formatTime } from '../display-format.js';
import { filterChips, overviewToolbar, type GoalChoices } from '../overview-controls.js';
import { overviewFigures } from '../overview-figures.js';
import {
  DIMENSION_LABELS,
  parseView,
  viewPath,
  withFilter,
  type OverviewView,
  type PanelDimension,
} from '../overview-view.js';
import type { Page, PageContext } from '../page-context.js';
import { whenLeft } from '../page-lifetime.js';
import { rankedList } from '../ranked-list.js';
import { loadOverview, projectStats, visitorsNow, type OverviewStats, type PanelRow } from '../stats-requests.js';
import { color, timeSeriesChart } from '../time-series-chart.js';

/** The panels, in the stored overview's order (its look is kept), with entry pages added. */
export const PANELS: Array<[PanelDimension, string]> = [
  ['page', 'Top pages'],
  ['entry_page', 'Entry pages'],
  ['referrer', 'Referrers'],
  ['utm_source', 'UTM sources'],
  ['country', 'Countries'],
  ['browser', 'Browsers'],
  ['device', 'Devices'],
  ['tag', 'Tags'],
  ['action', 'Actions'],
];
/** How often "visitors now" is asked again while the page is shown. */
const NOW_EVERY_MS = 15_000;

async function goalChoices(ctx: PageContext): Promise<GoalChoices> {
  const [{ actions }, { tags }] = await Promise.all([
    ok(api().GET('/v1/events/actions', { params: { query: ctx.scope } })),
    ok(api().GET('/v1/tags', { params: { query: ctx.scope } })),
  ]);
  return { actions: actions.map((a) => a.action).sort(), tags: tags.map((t) => t.tag).sort() };
}

/**
 * With a goal, each row also says its conversions: sessions, as the API counts them, so no share
 * of the row's visitors is made of them (a visitor may convert in two sessions).
 */
const conversionsOf = (r: PanelRow): string | undefined =>
  r.conversions === null ? undefined : `${formatCount(r.conversions)} conv.`;

/** The panels' ranked lists, each row a filter (the shared page's too, pages/shared-page.ts). */
export function panels(stats: OverviewStats, v: OverviewView, go: (v: OverviewView) => void): HTMLElement {
  return h(
    'div',
    { class: 'grid' },
    PANELS.map(([dimension, title]) =>
      rankedList(
        v.goal ? `${title} (visitors, conversions)` : title,
        (stats.panels.get(dimension) ?? []).map((r) => ({ name: r.name, count: r.visitors, extra: conversionsOf(r) })),
        'Nothing in this range.',
        {
          hint: `Filter by ${DIMENSION_LABELS[dimension].toLowerCase()}:`,
          onPick: (name) => go(withFilter(v, { dimension, value: name })),
        },
      ),
    ),
  );
}

export function charts(stats: OverviewStats): HTMLElement {
  const { times, values } = stats.series;
  return h(
    'div',
    { class: 'charts' },
    timeSeriesChart('Events over time', times, [{ label: 'Events', values: values.events, color: color(0) }]),
    timeSeriesChart('Sessions and visitors over time', times, [
      { label: 'Sessions', values: values.sessions, color: color(1) },
      { label: 'Visitors', values: values.visitors, color: color(2) },
    ]),
  );
}

/** "Visitors now", asked at once and every 15 s until the page is left. */
function liveFigure(ctx: PageContext, first: number): HTMLElement {
  const value = h('dd', { class: 'value' }, formatCount(first));
  const box = h(
    'dl',
    { class: 'figures now' },
    h(
      'div',
      { class: 'figure' },
      h('dt', {}, h('span', { class: 'pulse', 'aria-hidden': 'true' }), 'Visitors now'),
      value,
      h('dd', { class: 'link' }, h('a', { href: '/live' }, 'Live view')),
    ),
  );
  const timer = setInterval(() => {
    if (!box.isConnected) return;
    visitorsNow(projectStats(ctx.scope)).then(
      (n) => replace(value, formatCount(n)),
      () => replace(value, '—'),
    );
  }, NOW_EVERY_MS);
  whenLeft(ctx.main, () => clearInterval(timer));
  return box;
}

export const overviewPage: Page = async (ctx: PageContext) => {
  const view = parseView(ctx.query);
  const go = (v: OverviewView) => ctx.navigate(viewPath(v));
  const [stats, goals, now] = await Promise.all([
    loadOverview(
      projectStats(ctx.scope),
      view,
      PANELS.map(([d]) => d),
    ),
    goalChoices(ctx),
    visitorsNow(projectStats(ctx.scope)),
  ]);
  const shown = stats.figures.date_range;
  const before = stats.figures.compare_range;
  replace(
    ctx.main,
    h('h1', { tabindex: -1 }, `Overview of ${ctx.scope.project}`),
    overviewToolbar(view, shown, goals, go),
    filterChips(view, go),
    h(
      'p',
      { class: 'muted range-note' },
      `${formatTime(shown.start)} – ${formatTime(shown.end)}`,
      before ? `, compared with ${formatTime(before.start)} – ${formatTime(before.end)}` : '',
      '. Stored overviews and Aggregate now: ',
      h('a', { href: '/reports' }, 'Reports'),
      '.',
    ),
    liveFigure(ctx, now),
    overviewFigures(stats.figures, view.compare),
    charts(stats),
    panels(stats, view, go),
  );
};
