import { api, ok } from '../api-access.js';
import { field, h, replace } from '../dom-builder.js';
import { formatAgo, formatTime } from '../display-format.js';
import type { Page } from '../page-context.js';

const HOUR = 3_600_000;
const QUIET: [key: string, label: string, ms: number][] = [
  ['1h', 'an hour', HOUR],
  ['24h', 'a day', 24 * HOUR],
  ['7d', 'a week', 7 * 24 * HOUR],
];

/**
 * Every action name with when it was last seen. The spec: "an action absent from this list is
 * not being emitted"; one that is listed but quiet for longer than the chosen span is flagged,
 * since a tracking call that silently broke looks exactly like that.
 */
export const actionsPage: Page = async (ctx) => {
  const key = ctx.query.get('quiet') ?? '24h';
  const quiet = QUIET.find(([k]) => k === key) ?? QUIET[1]!;
  const { actions } = await ok(api().GET('/v1/events/actions', { params: { query: ctx.scope } }));
  const now = Date.now();
  const sorted = [...actions].sort((a, b) => b.last_seen - a.last_seen);
  const stopped = sorted.filter((a) => now - a.last_seen > quiet[2]);
  const select = h(
    'select',
    { name: 'quiet', onchange: () => ctx.navigate(`/actions?quiet=${select.value}`) },
    QUIET.map(([k, label]) => h('option', { value: k, selected: k === quiet[0] }, `more than ${label}`)),
  );
  const list = sorted.length
    ? h(
        'ul',
        { class: 'action-list' },
        sorted.map((a) => {
          const silent = now - a.last_seen > quiet[2];
          return h(
            'li',
            { class: silent ? 'stopped' : '' },
            h('strong', {}, a.action),
            h('span', { title: formatTime(a.last_seen) }, `last seen ${formatAgo(a.last_seen, now)}`),
            silent
              ? h('span', { class: 'chip warn' }, 'stopped arriving')
              : h('span', { class: 'chip ok' }, 'arriving'),
          );
        }),
      )
    : h('p', { class: 'empty' }, 'No action seen yet.');
  replace(
    ctx.main,
    h('h1', { tabindex: -1 }, 'Actions'),
    h('div', { class: 'toolbar' }, field('Flag actions silent for', select)),
    h(
      'p',
      { class: stopped.length ? 'status error' : 'status info' },
      stopped.length
        ? `${stopped.length} of ${sorted.length} actions stopped arriving.`
        : `All ${sorted.length} actions are arriving.`,
    ),
    list,
  );
};
