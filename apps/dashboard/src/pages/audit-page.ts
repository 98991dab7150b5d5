// Audit (issue 45, item 7; docs/dashboard.md, docs/security.md, Audit trail): who changed the
// project's members, roles, rules, outbound configuration, settings and data, and when — newest
// first, filtered by category or by person (kept in the URL), a page at a time. Owners and admins
// read it; another role is told so instead of shown an error.
import type { components, paths } from '@spoor/client';
import { ApiError, api, ok } from '../api-access.js';
import { filterChipList, h, replace } from '../dom-builder.js';
import { formatAgo, formatTime } from '../display-format.js';
import type { Page, PageContext } from '../page-context.js';

type AuditEntry = components['schemas']['AuditEntry'];
type AuditList = components['schemas']['AuditList'];
type AuditAction = NonNullable<NonNullable<paths['/v1/projects/audit']['get']['parameters']['query']>['action']>;

/** The categories a person filters by, with their labels; the API takes the part before the dot. */
const CATEGORIES: Array<[AuditAction, string]> = [
  ['member', 'Members and roles'],
  ['ownership', 'Ownership'],
  ['invitation', 'Invitations'],
  ['project', 'Project settings'],
  ['rule', 'Rules'],
  ['funnel', 'Funnels'],
  ['channel', 'Channels'],
  ['webhook', 'Webhooks'],
  ['schedule', 'Schedules'],
  ['alert', 'Alerts'],
  ['share_link', 'Share links'],
  ['data', 'Exports and erasures'],
];

const shown = (v: unknown): string =>
  v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v);

function actorOf(e: AuditEntry): HTMLElement {
  const name = e.actor.email ?? e.actor.account_id;
  return h(
    'span',
    { title: e.actor.account_id },
    name,
    e.actor.via === 'api_key'
      ? h('span', { class: 'muted small' }, ` with API key ${e.actor.api_key_name ?? ''}`)
      : null,
  );
}

function changesOf(e: AuditEntry): HTMLElement {
  const fields = Object.entries(e.changes);
  if (fields.length === 0) return h('span', { class: 'muted' }, '—');
  return h(
    'ul',
    { class: 'audit-changes' },
    fields.map(([field, c]) =>
      h('li', {}, h('code', {}, field), ': ', h('del', {}, shown(c.before)), ' → ', h('ins', {}, shown(c.after))),
    ),
  );
}

function entryRow(e: AuditEntry, filterBy: (actor: string) => string): HTMLElement {
  return h(
    'tr',
    {},
    h('td', {}, h('time', { datetime: new Date(e.at).toISOString(), title: formatTime(e.at) }, formatAgo(e.at))),
    h('td', {}, h('a', { href: filterBy(e.actor.email ?? e.actor.account_id) }, actorOf(e))),
    h('td', {}, h('code', {}, e.action)),
    h('td', {}, `${e.target.kind.replace('_', ' ')} `, h('strong', {}, e.target.name ?? e.target.id)),
    h('td', {}, changesOf(e)),
  );
}

/** The page's URL for a category and an actor (either may be empty). */
function auditPath(action: string, actor: string): string {
  const q = new URLSearchParams();
  if (action) q.set('action', action);
  if (actor) q.set('actor', actor);
  const text = q.toString();
  return text ? `/audit?${text}` : '/audit';
}

export const auditPage: Page = async (ctx: PageContext) => {
  const action = ctx.query.get('action') ?? '';
  const actor = ctx.query.get('actor') ?? '';
  const query = {
    ...ctx.scope,
    ...(action ? { action: action as AuditAction } : {}),
    ...(actor ? { actor } : {}),
    limit: 50,
  };
  let first: AuditList;
  try {
    first = await ok(api().GET('/v1/projects/audit', { params: { query } }));
  } catch (err) {
    // A role below admin: say what the page is and who reads it, rather than show a bare 403.
    if (err instanceof ApiError && err.status === 403) {
      replace(
        ctx.main,
        h('h1', { tabindex: -1 }, 'Audit'),
        h('p', { class: 'empty' }, `Only the project's owners and admins read its audit trail. ${err.message}.`),
      );
      return;
    }
    throw err;
  }
  const select = h(
    'select',
    { name: 'action', 'aria-label': 'Category', onchange: () => ctx.navigate(auditPath(select.value, actor)) },
    h('option', { value: '' }, 'Every change'),
    CATEGORIES.map(([value, label]) => h('option', { value, selected: value === action }, label)),
  );
  const rows = h('tbody', {});
  const more = h('button', { type: 'button' }, 'Older entries');
  let cursor = first.next_cursor;
  const add = (list: AuditList) => {
    for (const e of list.entries) rows.append(entryRow(e, (who) => auditPath(action, who)));
    cursor = list.next_cursor;
    more.hidden = cursor === null;
  };
  more.addEventListener('click', () => {
    if (!cursor) return;
    more.disabled = true;
    void ok(api().GET('/v1/projects/audit', { params: { query: { ...query, cursor } } }))
      .then(add)
      .finally(() => (more.disabled = false));
  });
  add(first);
  const actorChip = filterChipList(
    actor ? [{ text: `By ${actor}`, remove: () => ctx.navigate(auditPath(action, '')) }] : [],
  );
  replace(
    ctx.main,
    h('h1', { tabindex: -1 }, 'Audit'),
    h(
      'p',
      { class: 'muted' },
      "Who changed the project's members, roles, rules, channels, webhooks, settings and data, newest first. Kept as long as the project's events (its retention).",
    ),
    h('div', { class: 'toolbar' }, select),
    actorChip,
    first.entries.length === 0
      ? h('p', { class: 'empty' }, action || actor ? 'No change matches.' : 'No change recorded yet.')
      : h(
          'div',
          { class: 'table-scroll' },
          h(
            'table',
            { class: 'audit', 'aria-label': 'Audit trail' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['When', 'Who', 'What', 'On', 'Changes'].map((c) => h('th', { scope: 'col' }, c)),
              ),
            ),
            rows,
          ),
        ),
    more,
  );
};
