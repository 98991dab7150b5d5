import { api, ok } from '../api-access.js';
import { field, h, replace, showError, showInfo, statusLine } from '../dom-builder.js';
import type { Scope } from '../project-scope.js';
import type { Section } from './settings-section.js';

type IpPolicy = 'full' | 'truncate' | 'hash';
const POLICIES: Array<[IpPolicy, string]> = [
  ['full', 'Full address'],
  ['truncate', 'Truncated (IPv4 /24, IPv6 /48)'],
  ['hash', 'Hashed (salted HMAC)'],
];

const retentionText = (days: number | null) =>
  days === null ? 'kept until you delete them' : `kept ${days} day${days === 1 ? '' : 's'}`;

/**
 * The project's retention days and IP policy (PATCH /v1/projects, docs/data.md): an empty
 * number keeps events and sessions forever. The server checks the values (its 422 is shown).
 */
function retentionForm(
  scope: Scope,
  now: { retention_days: number | null; ip_policy: IpPolicy },
  status: HTMLElement,
  onSaved: () => Promise<void>,
): HTMLElement {
  const days = h('input', {
    name: 'retention_days',
    type: 'number',
    min: 1,
    step: 1,
    inputmode: 'numeric',
    placeholder: 'forever',
    value: now.retention_days ?? '',
  });
  const policy = h(
    'select',
    { name: 'ip_policy' },
    POLICIES.map(([v, label]) => h('option', { value: v, selected: v === now.ip_policy }, label)),
  );
  // novalidate: the server's message (its 422) says what is wrong, in the words the API uses.
  return h(
    'form',
    {
      class: 'toolbar',
      novalidate: true,
      onsubmit: async (ev: SubmitEvent) => {
        ev.preventDefault();
        const text = days.value.trim();
        try {
          await ok(
            api().PATCH('/v1/projects', {
              params: { query: { origin: scope.origin, project: scope.project } },
              body: { retention_days: text === '' ? null : Number(text), ip_policy: policy.value as IpPolicy },
            }),
          );
          await onSaved();
          showInfo(status, 'Saved.');
        } catch (err) {
          showError(status, (err as Error).message);
        }
      },
    },
    field(
      'Keep events and sessions (days)',
      days,
      'Empty: keep them until you delete them. Older ones are deleted once a day.',
    ),
    field('Visitor IP addresses', policy, 'Applies to events stored from now on; stored ones keep what they have.'),
    h('button', { type: 'submit' }, 'Save'),
  );
}

/** Retention and IP policy of the project shown. */
export function dataRetentionSection(scope: Scope): Section {
  const body = h('div', {});
  const status = statusLine();
  const element = h(
    'section',
    { class: 'card settings', 'aria-label': 'Data retention' },
    h('h2', {}, 'Data retention'),
    body,
    status,
  );
  const section: Section = {
    element,
    status,
    async reload() {
      try {
        const { projects } = await ok(api().GET('/v1/projects'));
        const now = projects.find((p) => p.origin === scope.origin && p.project === scope.project);
        if (!now) throw new Error(`${scope.project} is not one of your projects`);
        replace(
          body,
          h(
            'p',
            { class: 'muted' },
            `Events and sessions are ${retentionText(now.retention_days)}; IP addresses are stored ${now.ip_policy === 'full' ? 'in full' : now.ip_policy === 'truncate' ? 'truncated' : 'hashed'}.`,
          ),
          retentionForm(scope, now, status, () => section.reload()),
        );
      } catch (err) {
        showError(status, (err as Error).message);
      }
    },
  };
  return section;
}
