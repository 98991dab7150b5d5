import { api, ok } from '../api-access.js';
import { field, h, replace } from '../dom-builder.js';
import { formatTime } from '../display-format.js';
import type { Scope } from '../project-scope.js';
import { change, removeButton, secretOnce, settingsSection, type Section } from './settings-section.js';

const EVENTS = ['rule.matched', 'threshold.crossed', 'digest.created'] as const;

/** A webhook's delivery log, newest first, drawn into `into` on demand. */
async function showDeliveries(scope: Scope, id: string, into: HTMLElement): Promise<void> {
  const { deliveries } = await ok(
    api().GET('/v1/webhooks/{webhook_id}/deliveries', {
      params: { path: { webhook_id: id }, query: { ...scope, limit: 50 } },
    }),
  );
  replace(
    into,
    deliveries.length
      ? h(
          'ul',
          { class: 'deliveries' },
          deliveries.map((d) =>
            h(
              'li',
              {},
              h('strong', {}, d.event_type),
              ` ${d.status}, ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}, ${formatTime(d.created_at)}`,
              d.response_status ? ` → HTTP ${d.response_status}` : '',
              d.error ? h('span', { class: 'error' }, ` ${d.error}`) : null,
            ),
          ),
        )
      : h('p', { class: 'muted' }, 'No delivery yet.'),
  );
}

/** Signed outbound webhooks (Standard Webhooks): the signing secret is answered once. */
export function webhooksSection(scope: Scope): Section {
  const section = settingsSection(
    'Webhooks',
    async () => {
      const { webhooks } = await ok(api().GET('/v1/webhooks', { params: { query: scope } }));
      if (!webhooks.length) return h('p', { class: 'muted' }, 'No webhook.');
      return h(
        'ul',
        { class: 'webhook-list' },
        webhooks.map((w) => {
          const log = h('div', { class: 'delivery-log', 'aria-live': 'polite' });
          return h(
            'li',
            {},
            h(
              'div',
              { class: 'row' },
              h('strong', { class: 'mono' }, w.url),
              h(
                'span',
                { class: w.enabled ? 'chip ok' : 'chip warn' },
                w.enabled ? 'enabled' : `disabled${w.disabled_reason ? `: ${w.disabled_reason}` : ''}`,
              ),
            ),
            h('div', { class: 'muted' }, w.events.join(', ')),
            h(
              'div',
              { class: 'row' },
              h(
                'button',
                {
                  type: 'button',
                  class: 'secondary small',
                  onclick: () => void showDeliveries(scope, w.webhook_id, log),
                },
                'Delivery log',
              ),
              removeButton(
                `Delete webhook ${w.url}`,
                () =>
                  void change(section, async () => {
                    await ok(
                      api().DELETE('/v1/webhooks/{webhook_id}', {
                        params: { path: { webhook_id: w.webhook_id }, query: scope },
                      }),
                    );
                    return `Deleted the webhook to ${w.url}.`;
                  }),
              ),
            ),
            log,
          );
        }),
      );
    },
    (s) => {
      const url = h('input', {
        type: 'url',
        name: 'webhook_url',
        required: true,
        placeholder: 'https://hooks.example/spoor',
      });
      const boxes = EVENTS.map((e) =>
        h('input', { type: 'checkbox', name: 'events', value: e, checked: e === 'rule.matched' }),
      );
      return h(
        'form',
        {
          class: 'toolbar',
          onsubmit: (ev: SubmitEvent) => {
            ev.preventDefault();
            void change(s, async () => {
              const events = boxes.filter((b) => b.checked).map((b) => b.value as (typeof EVENTS)[number]);
              const created = await ok(
                api().POST('/v1/webhooks', { body: { ...scope, url: url.value.trim(), events } }),
              );
              url.value = '';
              return secretOnce(`Signing secret of the webhook to ${created.url}`, created.secret);
            });
          },
        },
        field('Webhook URL', url),
        h(
          'fieldset',
          {},
          h('legend', {}, 'Events'),
          boxes.map((b) => h('label', { class: 'check' }, b, ` ${b.value}`)),
        ),
        h('button', { type: 'submit' }, 'Add webhook'),
      );
    },
  );
  return section;
}
