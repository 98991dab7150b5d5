import { api, ok } from '../api-access.js';
import { field, h } from '../dom-builder.js';
import { formatTime } from '../display-format.js';
import { change, removeButton, secretOnce, settingsSection, type Section } from './settings-section.js';

/** API keys of the account (not of a project): the secret is answered once, at creation. */
export function apiKeysSection(): Section {
  const section = settingsSection(
    'API keys',
    async () => {
      const { api_keys } = await ok(api().GET('/v1/users/apikey'));
      if (!api_keys.length) return h('p', { class: 'muted' }, 'No API key.');
      return h(
        'ul',
        { class: 'action-list' },
        api_keys.map((k) =>
          h(
            'li',
            {},
            h('strong', {}, k.api_key_name),
            h('span', { class: 'muted' }, `created ${formatTime(k.created_at)}`),
            removeButton(
              `Delete API key ${k.api_key_name}`,
              () =>
                void change(section, async () => {
                  await ok(
                    api().DELETE('/v1/users/apikey/{api_key_name}', {
                      params: { path: { api_key_name: k.api_key_name } },
                    }),
                  );
                  return `Deleted ${k.api_key_name}.`;
                }),
            ),
          ),
        ),
      );
    },
    (s) => {
      const name = h('input', { name: 'api_key_name', required: true, maxlength: 100 });
      return h(
        'form',
        {
          class: 'toolbar',
          onsubmit: (ev: SubmitEvent) => {
            ev.preventDefault();
            void change(s, async () => {
              const created = await ok(api().POST('/v1/users/apikey', { body: { api_key_name: name.value.trim() } }));
              name.value = '';
              return secretOnce(`API key ${created.api_key_name}`, created.api_key);
            });
          },
        },
        field('Key name', name),
        h('button', { type: 'submit' }, 'Create API key'),
      );
    },
  );
  return section;
}
