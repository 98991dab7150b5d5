import { api, ok } from '../api-access.js';
import { field, h } from '../dom-builder.js';
import { formatTime } from '../display-format.js';
import type { Scope } from '../project-scope.js';
import type { Role } from './members-section.js';
import { change, type Section } from './settings-section.js';

/**
 * The link of an invitation that was not mailed (no SPOOR_SMTP_URL): answered once, so shown
 * with a button that copies it; where the clipboard is refused the text is selected instead.
 */
function linkToPassOn(email: string, link: string): HTMLElement {
  const input = h('input', {
    class: 'mono',
    readonly: true,
    value: link,
    'aria-label': `Invitation link for ${email}`,
    onfocus: (ev: FocusEvent) => (ev.target as HTMLInputElement).select(),
  });
  const copied = h('span', { class: 'muted', 'aria-live': 'polite' });
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(link);
      copied.textContent = 'Copied.';
    } catch {
      input.select();
      copied.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
    }
  };
  return h(
    'div',
    { class: 'secret', role: 'alert' },
    h(
      'p',
      {},
      `No mail was sent: pass this link on to ${email} yourself. It works once, for 7 days, and is not shown again.`,
    ),
    input,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'secondary small', onclick: () => void copy() }, 'Copy link'),
      copied,
    ),
  );
}

/** Invite by email with a role (those the caller may give, never owner), and the pending invitations with **Revoke**. */
export async function invitationsPart(section: Section, scope: Scope, roles: Role[]): Promise<HTMLElement> {
  const { invitations } = await ok(api().GET('/v1/projects/invitations', { params: { query: scope } }));
  const email = h('input', { type: 'email', name: 'invite_email', required: true, autocomplete: 'off' });
  const role = h(
    'select',
    { name: 'invite_role' },
    roles.filter((r) => r !== 'owner').map((r) => h('option', { value: r, selected: r === 'editor' }, r)),
  );
  const form = h(
    'form',
    {
      class: 'toolbar',
      onsubmit: (ev: SubmitEvent) => {
        ev.preventDefault();
        void change(section, async () => {
          const invited = await ok(
            api().POST('/v1/projects/invitations', {
              body: { ...scope, email: email.value.trim(), role: role.value as 'admin' | 'editor' | 'viewer' },
            }),
          );
          if (invited.link) return linkToPassOn(invited.email, invited.link);
          return `Invitation mailed to ${invited.email} (${invited.role}).`;
        });
      },
    },
    field('Invite by email', email),
    field('Role', role),
    h('button', { type: 'submit' }, 'Invite'),
  );
  const pending = invitations.length
    ? h(
        'ul',
        { class: 'action-list', 'aria-label': 'Pending invitations' },
        invitations.map((i) =>
          h(
            'li',
            {},
            h('strong', {}, i.email),
            h('span', { class: 'chip' }, i.role),
            h('span', { class: 'muted' }, `expires ${formatTime(i.expires_at)}`),
            h(
              'button',
              {
                type: 'button',
                class: 'secondary small',
                'aria-label': `Revoke the invitation of ${i.email}`,
                onclick: () =>
                  void change(section, async () => {
                    await ok(
                      api().DELETE('/v1/projects/invitations/{invitation_id}', {
                        params: { path: { invitation_id: i.invitation_id }, query: scope },
                      }),
                    );
                    return `Revoked the invitation of ${i.email}.`;
                  }),
              },
              'Revoke',
            ),
          ),
        ),
      )
    : h('p', { class: 'muted' }, 'No pending invitation.');
  return h('div', { class: 'invitations' }, h('h3', {}, 'Invitations'), form, h('h4', {}, 'Pending'), pending);
}
