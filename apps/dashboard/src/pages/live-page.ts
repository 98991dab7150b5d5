// The Live page (issue 18; docs/dashboard.md): visitors of the last 5 minutes, the pages they
// are on and the latest events, redrawn at each snapshot of GET /v1/live. The stream is read with
// fetch() so the token stays in the Authorization header; it reconnects after a drop and stops
// when the page is left.
import { followLive, LiveStreamError, type LiveSnapshot } from '@spoor/client';
import { reportUnauthorized } from '../api-access.js';
import { storedToken } from '../auth-store.js';
import { h, replace } from '../dom-builder.js';
import { formatCount } from '../display-format.js';
import type { Page } from '../page-context.js';
import { whenLeft } from '../page-lifetime.js';
import { figures, rankedList } from '../ranked-list.js';

const clock = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

export const livePage: Page = async (ctx) => {
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' }, 'Connecting…');
  const body = h('div', { class: 'live' });
  replace(
    ctx.main,
    h('h1', { tabindex: -1 }, 'Live'),
    h('p', { class: 'muted' }, 'Visitors with an event in the last 5 minutes, updated every 2 seconds.'),
    status,
    body,
  );
  const abort = new AbortController();
  whenLeft(ctx.main, () => abort.abort());
  // Not awaited: the page shows at once and fills as snapshots arrive.
  void followLive({
    baseUrl: location.origin,
    token: storedToken()?.id_token ?? null,
    ...ctx.scope,
    signal: abort.signal,
    onSnapshot: (snap) => {
      replace(status, `Updated ${clock.format(new Date(snap.at))}`);
      status.className = 'status info';
      replace(body, ...renderSnapshot(snap));
    },
    onState: (state, waitMs) => {
      if (state === 'reconnecting')
        replace(status, `The stream dropped; reconnecting in ${Math.round(waitMs / 1000)} s…`);
    },
  }).catch((err: unknown) => {
    status.className = 'status error';
    replace(status, err instanceof Error ? err.message : String(err));
    if (err instanceof LiveStreamError && err.status === 401) reportUnauthorized(err.message);
  });
};

function renderSnapshot(snap: LiveSnapshot): HTMLElement[] {
  return [
    figures([
      ['Visitors now', formatCount(snap.visitors)],
      ['Pages viewed', formatCount(snap.pages.length)],
    ]),
    rankedList(
      'Pages being viewed',
      snap.pages.map((p) => ({ name: p.path, count: p.visitors })),
      'Nobody on the site right now.',
    ),
    h(
      'section',
      { class: 'card', 'aria-label': 'Latest events' },
      h('h3', {}, 'Latest events'),
      snap.events.length === 0
        ? h('p', { class: 'muted' }, 'No event in the last 5 minutes.')
        : h(
            'div',
            { class: 'table-scroll' },
            h(
              'table',
              { class: 'live-events' },
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  ['Time', 'Action', 'Page', 'Session', 'Browser', 'Country'].map((t) => h('th', { scope: 'col' }, t)),
                ),
              ),
              h(
                'tbody',
                {},
                snap.events.map((e) =>
                  h(
                    'tr',
                    {},
                    h('td', {}, clock.format(new Date(e.timestamp))),
                    h('td', {}, e.action),
                    h('td', {}, e.path ?? '—'),
                    h('td', {}, h('a', { href: `/sessions/${encodeURIComponent(e.session_id)}` }, e.session_id)),
                    h('td', {}, e.browser ?? '—'),
                    h('td', {}, e.country ?? '—'),
                  ),
                ),
              ),
            ),
          ),
    ),
  ];
}
