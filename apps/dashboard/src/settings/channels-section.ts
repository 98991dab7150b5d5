import { api, ok } from '../api-access.js';
import { field, h } from '../dom-builder.js';
import type { Scope } from '../project-scope.js';
import { change, removeButton, settingsSection, type Section } from './settings-section.js';

const KINDS = ['email', 'slack', 'discord', 'mattermost'] as const;

/** Each address with its state: mail goes only to those who followed their confirmation link. */
const recipientStates = (recipients: string[], confirmed: string[]) =>
  recipients.map((a) => (confirmed.includes(a) ? a : `${a} (awaiting confirmation)`)).join(', ');

/** Where digests and alerts go: email recipients, or a chat platform's incoming webhook. */
export function channelsSection(scope: Scope): Section {
  const section = settingsSection(
    'Channels',
    async () => {
      const { channels } = await ok(api().GET('/v1/channels', { params: { query: scope } }));
      if (!channels.length) return h('p', { class: 'muted' }, 'No channel: digests have nowhere to go.');
      return h(
        'ul',
        { class: 'action-list' },
        channels.map((c) =>
          h(
            'li',
            {},
            h('strong', {}, c.name),
            h('span', { class: 'chip' }, c.kind),
            h(
              'span',
              { class: 'muted' },
              c.kind === 'email' ? recipientStates(c.recipients, c.confirmed) : (c.url ?? ''),
            ),
            removeButton(
              `Delete channel ${c.name}`,
              () =>
                void change(section, async () => {
                  await ok(
                    api().DELETE('/v1/channels/{channel_id}', {
                      params: { path: { channel_id: c.channel_id }, query: scope },
                    }),
                  );
                  return `Deleted ${c.name}.`;
                }),
            ),
          ),
        ),
      );
    },
    (s) => {
      const name = h('input', { name: 'channel_name', required: true });
      const kind = h(
        'select',
        { name: 'kind' },
        KINDS.map((k) => h('option', { value: k }, k)),
      );
      const target = h('input', { name: 'target', required: true });
      return h(
        'form',
        {
          class: 'toolbar',
          onsubmit: (ev: SubmitEvent) => {
            ev.preventDefault();
            void change(s, async () => {
              const k = kind.value as (typeof KINDS)[number];
              const to = target.value.trim();
              const body =
                k === 'email'
                  ? { ...scope, name: name.value.trim(), kind: k, recipients: to.split(/[\s,]+/).filter(Boolean) }
                  : { ...scope, name: name.value.trim(), kind: k, url: to };
              const created = await ok(api().POST('/v1/channels', { body }));
              return created.kind === 'email'
                ? `Added channel ${created.name}; each address gets a confirmation mail first.`
                : `Added channel ${created.name}.`;
            });
          },
        },
        field('Channel name', name),
        field('Kind', kind),
        field(
          'Recipients or webhook URL',
          target,
          'Email: addresses separated by commas. Chat: the incoming-webhook URL.',
        ),
        h('button', { type: 'submit' }, 'Add channel'),
      );
    },
  );
  return section;
}
