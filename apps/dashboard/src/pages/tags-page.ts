import { api, ok } from '../api-access.js';
import { h, replace } from '../dom-builder.js';
import { formatAgo, formatTime } from '../display-format.js';
import type { Page } from '../page-context.js';

/** Every tag of the project with when it was last given; a tag opens its sessions. */
export const tagsPage: Page = async (ctx) => {
  const { tags } = await ok(api().GET('/v1/tags', { params: { query: ctx.scope } }));
  const chosen = ctx.query.get('tag');
  let detail: HTMLElement | null = null;
  if (chosen) {
    const tagged = await ok(
      api().GET('/v1/tags/{tag}', { params: { path: { tag: chosen }, query: { ...ctx.scope, limit: 100 } } }),
    );
    detail = h(
      'section',
      { class: 'card', 'aria-label': `Sessions tagged ${chosen}` },
      h('h2', {}, `Sessions tagged “${chosen}”`),
      tagged.sessions.length
        ? h(
            'ul',
            {},
            tagged.sessions.map((s) =>
              h(
                'li',
                {},
                h('a', { href: `/sessions/${encodeURIComponent(s.session_id)}` }, s.session_id),
                ` tagged ${formatTime(s.tagged_at)}`,
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'No session carries it now.'),
    );
  }
  replace(
    ctx.main,
    h('h1', { tabindex: -1 }, 'Tags'),
    tags.length
      ? h(
          'ul',
          { class: 'action-list' },
          tags.map((t) =>
            h(
              'li',
              {},
              h('a', { href: `/tags?tag=${encodeURIComponent(t.tag)}` }, t.tag),
              h('span', { title: formatTime(t.last_seen) }, `last given ${formatAgo(t.last_seen)}`),
            ),
          ),
        )
      : h('p', { class: 'empty' }, 'No tags yet: rules add them, and you can tag a session by hand.'),
    detail,
  );
};
