import type { components } from '@spoor/client';
import { api, ok } from '../api-access.js';
import { field, h } from '../dom-builder.js';
import { formatDuration, formatTime } from '../display-format.js';
import type { Scope } from '../project-scope.js';
import { change, removeButton, settingsSection, type Section } from './settings-section.js';

type Condition = components['schemas']['CreateAlertRequest']['condition'];
type AlertItem = components['schemas']['Alert'];

const TYPES: [value: Condition['type'], label: string, subject: string][] = [
  ['tag_count', 'more sessions with a tag than a threshold', 'Tag'],
  ['action_absent', 'an action stopped arriving', 'Action'],
  ['rule_match', 'a rule matched a session', 'Rule id'],
];
const WINDOWS: [label: string, ms: number][] = [
  ['15 minutes', 900_000],
  ['1 hour', 3_600_000],
  ['1 day', 86_400_000],
];

/** What an alert watches, in words. */
function describe(c: AlertItem['condition']): string {
  if (c.type === 'tag_count')
    return `more than ${c.threshold} sessions tagged “${c.tag}” within ${formatDuration(c.window_ms)}`;
  if (c.type === 'action_absent') return `“${c.action}” not seen for ${formatDuration(c.window_ms)}`;
  return `rule “${c.rule_id}” matches a session`;
}

function condition(type: Condition['type'], subject: string, threshold: number, windowMs: number): Condition {
  if (type === 'tag_count') return { type, tag: subject, threshold, window_ms: windowMs };
  if (type === 'action_absent') return { type, action: subject, window_ms: windowMs };
  return { type, rule_id: subject };
}

function alertForm(scope: Scope, s: Section): HTMLElement {
  const name = h('input', { name: 'alert_name', required: true, maxlength: 100 });
  const type = h(
    'select',
    { name: 'alert_type' },
    TYPES.map(([v, label]) => h('option', { value: v }, label)),
  );
  const subject = h('input', { name: 'alert_subject', required: true, maxlength: 200 });
  const threshold = h('input', { name: 'alert_threshold', type: 'number', min: 0, value: 10 });
  const window = h(
    'select',
    { name: 'alert_window' },
    WINDOWS.map(([label, ms]) => h('option', { value: ms, selected: ms === 3_600_000 }, label)),
  );
  return h(
    'form',
    {
      class: 'toolbar',
      onsubmit: (ev: SubmitEvent) => {
        ev.preventDefault();
        void change(s, async () => {
          const body = {
            ...scope,
            name: name.value.trim(),
            condition: condition(
              type.value as Condition['type'],
              subject.value.trim(),
              Number(threshold.value),
              Number(window.value),
            ),
          };
          const created = await ok(api().POST('/v1/alerts', { body }));
          return `Added the alert “${created.name}”.`;
        });
      },
    },
    field('Alert name', name),
    field('When', type),
    field('Tag, action or rule id', subject),
    field('Threshold (tag count)', threshold),
    field('Window', window),
    h('button', { type: 'submit' }, 'Add alert'),
  );
}

/** Notifications without a trigger (docs/outbound.md, Alerts): sent to every channel of the project. */
export function alertsSection(scope: Scope): Section {
  const section = settingsSection(
    'Alerts',
    async () => {
      const { alerts } = await ok(api().GET('/v1/alerts', { params: { query: scope } }));
      if (!alerts.length) return h('p', { class: 'muted' }, 'No alert.');
      return h(
        'ul',
        { class: 'action-list' },
        alerts.map((a) =>
          h(
            'li',
            {},
            h('strong', {}, a.name),
            h('span', {}, describe(a.condition)),
            h(
              'span',
              { class: a.firing ? 'status error' : 'muted' },
              a.firing ? 'firing' : a.last_fired_at ? `last fired ${formatTime(a.last_fired_at)}` : 'not fired yet',
            ),
            removeButton(
              `Delete the alert ${a.name}`,
              () =>
                void change(section, async () => {
                  await ok(
                    api().DELETE('/v1/alerts/{alert_id}', { params: { path: { alert_id: a.alert_id }, query: scope } }),
                  );
                  return `Deleted the alert “${a.name}”.`;
                }),
            ),
          ),
        ),
      );
    },
    (s) => alertForm(scope, s),
  );
  return section;
}
