import type { components } from '@spoor/client';
import { api, ok } from '../api-access.js';
import { field, h, replace } from '../dom-builder.js';
import { formatDuration, formatTime, toInputTime } from '../display-format.js';
import { exportPanel } from '../export-panel.js';
import type { Page, PageContext } from '../page-context.js';
import { filterFromQuery, loadSessions, UNCLASSIFIED, type SessionFilter } from '../session-filters.js';

type Summary = components['schemas']['SessionSummary'];

function sessionRow(s: Summary): HTMLElement {
  const where = [s.geo.country, s.browser.name, s.device.type ?? 'desktop'].filter(Boolean).join(' · ');
  const verdict = s.classification?.labels.length
    ? s.classification.labels.join(', ')
    : s.classification?.rule_ids.join(', ') || 'unclassified';
  return h(
    'li',
    { class: 'session-row' },
    h('a', { href: `/sessions/${encodeURIComponent(s.session_id)}` }, formatTime(s.last_event_at)),
    h('span', {}, `${s.event_count} events · ${s.page_count} pages · ${formatDuration(s.duration_ms)}`),
    h('span', { class: 'muted' }, s.entry_url ?? ''),
    h('span', { class: 'muted' }, where),
    h(
      'span',
      { class: 'chips' },
      s.tags.map((t) => h('span', { class: 'chip' }, t)),
      h('span', { class: 'chip verdict' }, verdict),
    ),
  );
}

async function filterForm(ctx: PageContext, f: SessionFilter): Promise<HTMLFormElement> {
  const [{ tags }, { rules }] = await Promise.all([
    ok(api().GET('/v1/tags', { params: { query: ctx.scope } })),
    ok(api().GET('/v1/rules', { params: { query: ctx.scope } })),
  ]);
  const from = h('input', { type: 'datetime-local', name: 'from', value: f.from ? toInputTime(f.from) : '' });
  const to = h('input', { type: 'datetime-local', name: 'to', value: f.to ? toInputTime(f.to) : '' });
  const tag = h(
    'select',
    { name: 'tag' },
    h('option', { value: '' }, 'Any tag'),
    tags.map((t) => h('option', { value: t.tag, selected: t.tag === f.tag }, t.tag)),
  );
  const classes = [
    UNCLASSIFIED,
    ...new Set(
      rules.filter((r) => r.kind === 'classification').flatMap((r) => [r.rule_id, ...(r.label ? [r.label] : [])]),
    ),
  ];
  const cls = h(
    'select',
    { name: 'class' },
    h('option', { value: '' }, 'Any classification'),
    classes.map((c) => h('option', { value: c, selected: c === f.classification }, c)),
  );
  return h(
    'form',
    {
      class: 'toolbar filters',
      onsubmit: (ev: SubmitEvent) => {
        ev.preventDefault();
        const q = new URLSearchParams();
        for (const [k, v] of [
          ['from', from.value],
          ['to', to.value],
          ['tag', tag.value],
          ['class', cls.value],
        ] as const)
          if (v) q.set(k, v);
        ctx.navigate(`/sessions${q.size ? `?${q}` : ''}`);
      },
    },
    field('From', from),
    field('To', to),
    field('Tag', tag),
    field('Classification', cls),
    h('button', { type: 'submit' }, 'Filter'),
  );
}

/**
 * Sessions newest first, filtered by time, tag and classification; each opens its story. The
 * export of sessions and events sits here too, right under the time filter it uses: this is the page
 * that lists the project's visits, and the only one with a time window events can share.
 */
export const sessionsPage: Page = async (ctx) => {
  const f = filterFromQuery(ctx.query);
  const [form, sessions] = await Promise.all([filterForm(ctx, f), loadSessions(ctx.scope, f)]);
  const list = sessions.length
    ? h('ol', { class: 'session-list', 'aria-label': 'Sessions, newest first' }, sessions.map(sessionRow))
    : h('p', { class: 'empty' }, 'No sessions match. Add the logger to a page (see Projects) and visit it.');
  replace(
    ctx.main,
    h('h1', { tabindex: -1 }, 'Sessions'),
    form,
    exportPanel(ctx.scope, { from: f.from, to: f.to }),
    h('p', { class: 'muted' }, `${sessions.length} shown (at most 50).`),
    list,
  );
};
