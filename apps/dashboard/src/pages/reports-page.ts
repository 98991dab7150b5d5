// Reports (issue 44; docs/dashboard.md): the stored overviews — the digest history, made by a
// schedule or by "Aggregate now" — listed newest first, one shown in the Overview's former look.
import type { components } from '@spoor/client';
import { api, ok, waitForJob } from '../api-access.js';
import { field, h, replace, statusLine, whileBusy } from '../dom-builder.js';
import { formatCount, formatDuration, formatPercent, formatTime } from '../display-format.js';
import type { Page, PageContext } from '../page-context.js';
import { figures, rankedList } from '../ranked-list.js';
import { color, timeSeriesChart } from '../time-series-chart.js';

type Overview = components['schemas']['Overview'];

const HOUR = 3_600_000;
const RANGES: [key: string, label: string, ms: number][] = [
  ['1h', 'Last hour', HOUR],
  ['24h', 'Last 24 hours', 24 * HOUR],
  ['7d', 'Last 7 days', 7 * 24 * HOUR],
  ['30d', 'Last 30 days', 30 * 24 * HOUR],
];

/** The overview asked for by its creation time, else the newest of the chosen length. */
function pickOverview(overviews: Overview[], rangeMs: number, at: number): Overview | null {
  return (
    overviews.find((o) => o.created_at === at) ??
    overviews.find((o) => Math.abs(o.window_end - o.window_start - rangeMs) < 60_000) ??
    null
  );
}

function renderOverview(o: Overview): HTMLElement {
  const times = o.series.map((p) => p.start);
  return h(
    'div',
    { class: 'overview' },
    h(
      'p',
      { class: 'muted' },
      `Window ${formatTime(o.window_start)} – ${formatTime(o.window_end)}, aggregated ${formatTime(o.created_at)}.`,
    ),
    figures([
      ['Events', formatCount(o.events)],
      ['Sessions', formatCount(o.sessions)],
      ['Unique visitors', formatCount(o.visitors)],
      ['Bounce rate', formatPercent(o.bounce_rate)],
      ['Median duration', formatDuration(o.duration_ms.p50)],
    ]),
    h(
      'div',
      { class: 'charts' },
      timeSeriesChart('Events over time', times, [
        { label: 'Events', values: o.series.map((p) => p.events), color: color(0) },
      ]),
      timeSeriesChart('Sessions and visitors over time', times, [
        { label: 'Sessions', values: o.series.map((p) => p.sessions), color: color(1) },
        { label: 'Visitors', values: o.series.map((p) => p.visitors), color: color(2) },
      ]),
    ),
    h(
      'div',
      { class: 'grid' },
      rankedList('Top pages', o.pages),
      rankedList('Referrers', o.referrers),
      rankedList('UTM sources', o.utm_sources),
      rankedList('Countries', o.countries),
      rankedList('Browsers', o.browsers),
      rankedList('Devices', o.devices),
      rankedList('Tags', o.tags),
      rankedList('Actions', o.actions.slice(0, 10)),
    ),
  );
}

function storedList(overviews: Overview[], range: string, shown: Overview | null): HTMLElement {
  return h(
    'section',
    { class: 'card', 'aria-label': 'Stored overviews' },
    h('h2', {}, 'Stored overviews'),
    overviews.length === 0
      ? h('p', { class: 'muted' }, 'None yet.')
      : h(
          'ol',
          { class: 'report-list' },
          overviews.map((o) =>
            h(
              'li',
              {},
              h(
                'a',
                {
                  href: `/reports?range=${range}&at=${o.created_at}`,
                  'aria-current': o === shown ? 'true' : null,
                },
                `${formatTime(o.window_start)} – ${formatTime(o.window_end)}`,
              ),
              h(
                'span',
                { class: 'muted small' },
                ` ${formatCount(o.events)} events, aggregated ${formatTime(o.created_at)}`,
              ),
            ),
          ),
        ),
  );
}

/** The stored overviews, one shown, and a button to make a fresh one of the chosen length. */
export const reportsPage: Page = async (ctx: PageContext) => {
  const rangeKey = ctx.query.get('range') ?? '24h';
  const range = RANGES.find(([k]) => k === rangeKey) ?? RANGES[1]!;
  let at = Number(ctx.query.get('at') ?? NaN);
  const select = h(
    'select',
    { name: 'range', onchange: () => ctx.navigate(`/reports?range=${select.value}`) },
    RANGES.map(([k, label]) => h('option', { value: k, selected: k === range[0] }, label)),
  );
  const status = statusLine();
  const body = h('div', {});
  const aggregate = h('button', { type: 'button', onclick: () => void run() }, 'Aggregate now');
  async function load(): Promise<void> {
    const { overviews } = await ok(
      api().GET('/v1/projects/overview', { params: { query: { ...ctx.scope, limit: 100 } } }),
    );
    const chosen = pickOverview(overviews, range[2], at);
    replace(
      body,
      chosen
        ? renderOverview(chosen)
        : h(
            'p',
            { class: 'empty' },
            `No stored overview of the ${range[1].toLowerCase()} yet. Press “Aggregate now”, or add a schedule in Settings. The Overview shows any range without one.`,
          ),
      storedList(overviews, range[0], chosen),
    );
  }
  const run = () =>
    whileBusy(aggregate, status, 'Aggregating…', 'Aggregated.', async () => {
      const now = Date.now();
      at = NaN; // show the fresh one
      const { job_id } = await ok(
        api().POST('/v1/trigger/aggregation', {
          body: { ...ctx.scope, window_start: now - range[2], window_end: now },
        }),
      );
      await waitForJob(job_id, 'Aggregation');
      await load();
    });
  await load();
  replace(
    ctx.main,
    h('h1', { tabindex: -1 }, `Reports of ${ctx.scope.project}`),
    h(
      'p',
      { class: 'muted' },
      'Overviews stored by a schedule or by “Aggregate now”: the history the digests are made of. ',
      h('a', { href: '/overview' }, 'Back to the live Overview'),
      '.',
    ),
    h('div', { class: 'toolbar' }, field('Window', select), aggregate),
    status,
    body,
  );
};
