import { api, ApiError, ok } from '../api-access.js';
import { field, h } from '../dom-builder.js';
import { formatTime } from '../display-format.js';
import type { Scope } from '../project-scope.js';
import { change, secretOnce, settingsSection, type Section } from './settings-section.js';

/**
 * Public read-only links to the project's Overview (issue 45, item 3; docs/security.md, Share
 * links): an owner or admin makes one (a label, an optional password), copies it — once: only
 * its hash is kept — and revokes it. Below admin the section says so instead.
 */
export function shareLinksSection(scope: Scope): Section {
  const section = settingsSection(
    'Share links',
    async () => {
      let shares;
      try {
        ({ shares } = await ok(api().GET('/v1/projects/shares', { params: { query: scope } })));
      } catch (err) {
        if (err instanceof ApiError && err.status === 403)
          return h('p', { class: 'muted' }, 'Only owners and admins make and revoke share links.');
        throw err;
      }
      if (!shares.length) return h('p', { class: 'muted' }, 'No share link.');
      return h(
        'ul',
        { class: 'share-list' },
        shares.map((s) =>
          h(
            'li',
            { class: 'row' },
            h('strong', {}, s.label || '(no label)'),
            h('span', { class: s.has_password ? 'chip' : 'chip warn' }, s.has_password ? 'password' : 'public'),
            h('span', { class: 'muted' }, `made ${formatTime(s.created_at)}`),
            h(
              'button',
              {
                type: 'button',
                class: 'secondary small',
                'aria-label': `Revoke share link ${s.label || s.share_id}`,
                onclick: () =>
                  void change(section, async () => {
                    await ok(
                      api().DELETE('/v1/projects/shares/{share_id}', {
                        params: { path: { share_id: s.share_id }, query: scope },
                      }),
                    );
                    return `Revoked the share link ${s.label || s.share_id}: it opens nothing any more.`;
                  }),
              },
              'Revoke',
            ),
          ),
        ),
      );
    },
    (s) => {
      const label = h('input', { type: 'text', name: 'share_label', maxlength: 100, placeholder: 'For the board' });
      const password = h('input', {
        type: 'password',
        name: 'share_password',
        autocomplete: 'new-password',
        minlength: 8,
        maxlength: 256,
      });
      const form: HTMLFormElement = h(
        'form',
        {
          class: 'toolbar',
          onsubmit: (ev: SubmitEvent) => {
            ev.preventDefault();
            if (!form.reportValidity()) return;
            void change(s, async () => {
              const made = await ok(
                api().POST('/v1/projects/shares', {
                  body: { ...scope, label: label.value.trim(), password: password.value || null },
                }),
              );
              label.value = '';
              password.value = '';
              return secretOnce(`Share link ${made.label || ''}`.trim(), made.link);
            });
          },
        },
        field('Label', label),
        field('Password (optional)', password, 'At least 8 characters; visitors must enter it first.'),
        h('button', { type: 'submit' }, 'Make a share link'),
      );
      return form;
    },
  );
  return section;
}
