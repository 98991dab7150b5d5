import { api, ok } from '../api-access.js';
import { field, h } from '../dom-builder.js';
import { formatDuration, formatTime } from '../display-format.js';
import type { Scope } from '../project-scope.js';
import { change, removeButton, settingsSection, type Section } from './settings-section.js';

const KINDS = ['aggregation', 'notification', 'transitions'] as const;
const INTERVALS: [label: string, ms: number][] = [
  ['every hour', 3_600_000],
  ['every day', 86_400_000],
  ['every week', 7 * 86_400_000],
];

/** Intervals for aggregation, digests (notification) and transitions: each run covers the interval that just ended. */
export function schedulesSection(scope: Scope): Section {
  const section = settingsSection(
    'Schedules',
    async () => {
      const { schedules } = await ok(api().GET('/v1/schedules', { params: { query: scope } }));
      if (!schedules.length) return h('p', { class: 'muted' }, 'No schedule.');
      return h(
        'ul',
        { class: 'action-list' },
        schedules.map((sc) =>
          h(
            'li',
            {},
            h('strong', {}, sc.kind),
            h('span', {}, `every ${formatDuration(sc.interval_ms)}`),
            h('span', { class: 'muted' }, `next ${formatTime(sc.next_run_at)}`),
            removeButton(
              `Delete the ${sc.kind} schedule`,
              () =>
                void change(section, async () => {
                  await ok(
                    api().DELETE('/v1/schedules/{schedule_id}', {
                      params: { path: { schedule_id: sc.schedule_id }, query: scope },
                    }),
                  );
                  return `Deleted the ${sc.kind} schedule.`;
                }),
            ),
          ),
        ),
      );
    },
    (s) => {
      const kind = h(
        'select',
        { name: 'schedule_kind' },
        KINDS.map((k) => h('option', { value: k }, k === 'notification' ? 'notification (digest)' : k)),
      );
      const interval = h(
        'select',
        { name: 'interval' },
        INTERVALS.map(([label, ms]) => h('option', { value: ms }, label)),
      );
      return h(
        'form',
        {
          class: 'toolbar',
          onsubmit: (ev: SubmitEvent) => {
            ev.preventDefault();
            void change(s, async () => {
              const created = await ok(
                api().POST('/v1/schedules', {
                  body: {
                    ...scope,
                    kind: kind.value as (typeof KINDS)[number],
                    interval_ms: Number(interval.value),
                    enabled: true,
                  },
                }),
              );
              return `Scheduled ${created.kind} every ${formatDuration(created.interval_ms)}.`;
            });
          },
        },
        field('Job', kind),
        field('Interval', interval),
        h('button', { type: 'submit' }, 'Add schedule'),
      );
    },
  );
  return section;
}
