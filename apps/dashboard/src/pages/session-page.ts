import type { components } from '@spoor/client';
import { api, ApiError, ok } from '../api-access.js';
import { field, h, replace, showError, showInfo, statusLine } from '../dom-builder.js';
import { formatDuration, formatTime } from '../display-format.js';
import type { Page, PageContext } from '../page-context.js';
import { sessionTimeline } from '../session-timeline.js';

type Summary = components['schemas']['SessionSummary'];

function summaryList(s: Summary): HTMLElement {
  const utm = Object.entries(s.utm)
    .filter(([, v]) => v)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  const rows: [string, string][] = [
    ['Started', formatTime(s.first_event_at)],
    ['Last event', formatTime(s.last_event_at)],
    ['Duration', formatDuration(s.duration_ms)],
    ['Events', String(s.event_count)],
    ['Pages', String(s.page_count)],
    ['Entry', s.entry_url ?? '—'],
    ['Exit', s.exit_url ?? '—'],
    ['Referrer', s.referrer ?? '—'],
    ['UTM', utm || '—'],
    ['Browser', [s.browser.name, s.browser.version].filter(Boolean).join(' ') || '—'],
    ['OS', [s.os.name, s.os.version].filter(Boolean).join(' ') || '—'],
    ['Device', s.device.type ?? 'desktop'],
    ['Location', [s.geo.city, s.geo.country].filter(Boolean).join(', ') || '—'],
  ];
  return h(
    'dl',
    { class: 'summary' },
    rows.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v))),
  );
}

function classificationBlock(s: Summary): HTMLElement {
  const c = s.classification;
  return h(
    'section',
    { class: 'card', 'aria-label': 'Classification' },
    h('h2', {}, 'Classification'),
    c && c.rule_ids.length
      ? h(
          'p',
          {},
          `Matched ${c.rule_ids.join(', ')}${c.labels.length ? ` (${c.labels.join(', ')})` : ''} at ${formatTime(c.classified_at)}.`,
        )
      : h('p', { class: 'muted' }, c ? 'No rule matches this session.' : 'Not classified yet.'),
  );
}

function tagBlock(ctx: PageContext, id: string, tags: string[]): HTMLElement {
  const input = h('input', { name: 'tag', required: true, maxlength: 100 });
  const status = statusLine();
  const list = h(
    'ul',
    { class: 'chips', 'aria-label': 'Tags of this session' },
    tags.map((t) => h('li', { class: 'chip' }, t)),
  );
  const none = tags.length ? null : h('p', { class: 'muted' }, 'No tags yet.');
  const form = h(
    'form',
    {
      class: 'toolbar',
      onsubmit: async (ev: SubmitEvent) => {
        ev.preventDefault();
        try {
          const added = await ok(
            api().POST('/v1/sessions/{session_id}/tags', {
              params: { path: { session_id: id } },
              body: { ...ctx.scope, tag: input.value.trim() },
            }),
          );
          list.append(h('li', { class: 'chip' }, added.tag));
          none?.remove();
          showInfo(status, `Tagged “${added.tag}”.`);
          input.value = '';
        } catch (err) {
          showError(status, (err as Error).message);
        }
      },
    },
    field('Add a tag', input),
    h('button', { type: 'submit' }, 'Tag session'),
  );
  return h('section', { class: 'card', 'aria-label': 'Tags' }, h('h2', {}, 'Tags'), none, list, form, status);
}

/** One session: summary, attributes, tags (tag by hand), classification, and its events in order. */
export const sessionPage: Page = async (ctx) => {
  const id = ctx.params.id!;
  const req = { params: { path: { session_id: id }, query: ctx.scope } };
  // The summary carries the attributes and tags already: two requests, not four.
  const [summary, events] = await Promise.all([
    ok(api().GET('/v1/sessions/{session_id}', req)),
    // Event rows wait for the domain's verification (403): the summary still shows.
    ok(api().GET('/v1/sessions/{session_id}/events', req)).then(
      (r) => r.events,
      (err: unknown) => {
        if (err instanceof ApiError && err.status === 403) return err;
        throw err;
      },
    ),
  ]);
  const attrs = Object.entries(summary.attributes);
  replace(
    ctx.main,
    h('p', {}, h('a', { href: '/sessions' }, '← All sessions')),
    h('h1', { tabindex: -1 }, 'Session'),
    h('p', { class: 'muted mono' }, id),
    h(
      'div',
      { class: 'session-grid' },
      h('section', { class: 'card', 'aria-label': 'Summary' }, h('h2', {}, 'Summary'), summaryList(summary)),
      h(
        'div',
        {},
        classificationBlock(summary),
        tagBlock(ctx, id, summary.tags),
        h(
          'section',
          { class: 'card', 'aria-label': 'Attributes' },
          h('h2', {}, 'Attributes'),
          attrs.length
            ? h(
                'dl',
                { class: 'summary' },
                attrs.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, JSON.stringify(v)))),
              )
            : h('p', { class: 'muted' }, 'No attributes extracted.'),
        ),
      ),
    ),
    Array.isArray(events)
      ? h(
          'section',
          { 'aria-label': 'Timeline' },
          h('h2', {}, `Timeline (${events.length} events)`),
          sessionTimeline(events),
        )
      : h('section', { 'aria-label': 'Timeline' }, h('h2', {}, 'Timeline'), h('p', { class: 'muted' }, events.message)),
  );
};
