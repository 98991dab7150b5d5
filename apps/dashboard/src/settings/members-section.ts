import type { components } from '@spoor/client';
import { api, ok } from '../api-access.js';
import { field, h, replace, showError, statusLine } from '../dom-builder.js';
import { formatTime } from '../display-format.js';
import type { PageContext } from '../page-context.js';
import type { Scope } from '../project-scope.js';
import { invitationsPart } from './invitations-part.js';
import { change, type Section } from './settings-section.js';

type Member = components['schemas']['Member'];
export type Role = Member['role'];

const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2, owner: 3 };
const ROLES: Role[] = ['owner', 'admin', 'editor', 'viewer'];

/**
 * The roles `caller` may give (docs/security.md, Roles): an owner any, an admin those below admin;
 * nobody else manages members.
 */
const grantable = (caller: Role): Role[] =>
  caller === 'owner' ? ROLES : caller === 'admin' ? ROLES.filter((r) => RANK[r] < RANK.admin) : [];

/** An owner manages everyone; an admin members below admin. */
const manages = (caller: Role, member: Role): boolean =>
  caller === 'owner' || (caller === 'admin' && RANK[member] < RANK.admin);

const nameOf = (m: Member): string => m.email ?? m.account_id;

function memberRow(section: Section, scope: Scope, caller: Role, me: string, m: Member): HTMLElement {
  const path = { account_id: m.account_id };
  const editable = m.account_id !== me && manages(caller, m.role);
  const roleControl = editable
    ? h(
        'select',
        {
          'aria-label': `Role of ${nameOf(m)}`,
          onchange: (ev: Event) => {
            const role = (ev.target as HTMLSelectElement).value as Role;
            void change(section, async () => {
              await ok(
                api().PATCH('/v1/projects/members/{account_id}', { params: { path, query: scope }, body: { role } }),
              );
              return `${nameOf(m)} is now ${role}.`;
            });
          },
        },
        grantable(caller).map((r) => h('option', { value: r, selected: r === m.role }, r)),
      )
    : h('span', { class: m.role === 'owner' ? 'chip ok' : 'chip' }, m.role);
  // A viewer exports only when granted (issue 45): its managers tick it; others see whether it may.
  const exportsControl =
    m.role !== 'viewer'
      ? null
      : editable
        ? h(
            'label',
            { class: 'inline' },
            h('input', {
              type: 'checkbox',
              checked: m.exports,
              onchange: (ev: Event) => {
                const exports = (ev.target as HTMLInputElement).checked;
                void change(section, async () => {
                  await ok(
                    api().PATCH('/v1/projects/members/{account_id}', {
                      params: { path, query: scope },
                      body: { exports },
                    }),
                  );
                  return exports ? `${nameOf(m)} may now export.` : `${nameOf(m)} may no longer export.`;
                });
              },
            }),
            ' may export',
          )
        : m.exports
          ? h('span', { class: 'chip' }, 'may export')
          : null;
  return h(
    'li',
    { class: 'member' },
    h('strong', {}, nameOf(m)),
    m.account_id === me ? h('span', { class: 'muted' }, '(you)') : null,
    roleControl,
    exportsControl,
    h('span', { class: 'muted' }, `since ${formatTime(m.created_at)}`),
    editable
      ? h(
          'button',
          {
            type: 'button',
            class: 'secondary small',
            'aria-label': `Remove ${nameOf(m)}`,
            onclick: () =>
              void change(section, async () => {
                await ok(api().DELETE('/v1/projects/members/{account_id}', { params: { path, query: scope } }));
                return `Removed ${nameOf(m)}.`;
              }),
          },
          'Remove',
        )
      : null,
  );
}

/** Leaving the project (anyone; the last owner is refused with the API's 409), and, for an owner, giving ownership to a member. */
function yourMembership(section: Section, ctx: PageContext, caller: Role, me: string, members: Member[]): HTMLElement {
  const { scope } = ctx;
  const status = statusLine();
  const leave = h('button', { type: 'button', class: 'danger' }, 'Leave project');
  leave.addEventListener('click', async () => {
    leave.disabled = true;
    try {
      await ok(api().POST('/v1/projects/leave', { params: { query: scope } }));
      await ctx.refreshProjects();
      ctx.navigate(`/projects?left=${encodeURIComponent(scope.project)}`);
    } catch (err) {
      showError(status, (err as Error).message);
      leave.disabled = false;
    }
  });
  const others = members.filter((m) => m.account_id !== me);
  let transfer: HTMLElement | null = null;
  if (caller === 'owner' && others.length) {
    const to = h(
      'select',
      { name: 'transfer_to' },
      others.map((m) => h('option', { value: m.account_id }, `${nameOf(m)} (${m.role})`)),
    );
    transfer = h(
      'form',
      {
        class: 'toolbar',
        onsubmit: (ev: SubmitEvent) => {
          ev.preventDefault();
          const chosen = others.find((m) => m.account_id === to.value);
          // The section redraws with the caller's new role (admin) and what it allows.
          void change(section, async () => {
            await ok(api().POST('/v1/projects/transfer', { params: { query: scope }, body: { account_id: to.value } }));
            return `${chosen ? nameOf(chosen) : to.value} is the owner now; you are admin.`;
          });
        },
      },
      field('New owner', to, 'They become owner; you become admin.'),
      h('button', { type: 'submit', class: 'secondary' }, 'Transfer ownership'),
    );
  }
  return h(
    'div',
    { class: 'your-membership' },
    h('h3', {}, 'Your membership'),
    h('p', {}, `Your role: ${caller}.`),
    transfer,
    h('div', { class: 'actions' }, leave),
    status,
  );
}

/**
 * The project's members and their roles (issue 45; docs/security.md, Roles): what the caller's
 * role allows and no more — an owner or admin changes roles, removes members, invites and revokes
 * invitations; an owner transfers ownership; everyone may leave. The API's 403 and 409 (the last
 * owner) show in the section's status line.
 */
export function membersSection(ctx: PageContext): Section {
  const body = h('div', {});
  const status = statusLine();
  const element = h(
    'section',
    { class: 'card settings', 'aria-label': 'Members' },
    h('h2', {}, 'Members'),
    body,
    status,
  );
  const section: Section = {
    element,
    status,
    async reload() {
      try {
        const [{ projects }, account, { members }] = await Promise.all([
          ok(api().GET('/v1/users/projects')),
          ok(api().GET('/v1/users/account')),
          ok(api().GET('/v1/projects/members', { params: { query: ctx.scope } })),
        ]);
        const mine = projects.find((p) => p.origin === ctx.scope.origin && p.project === ctx.scope.project);
        const caller: Role = mine?.role ?? 'viewer';
        const me = account.account_id;
        const list = h(
          'ul',
          { class: 'action-list member-list', 'aria-label': 'Members' },
          members.map((m) => memberRow(section, ctx.scope, caller, me, m)),
        );
        const invitations =
          RANK[caller] >= RANK.admin ? await invitationsPart(section, ctx.scope, grantable(caller)) : null;
        replace(body, list, invitations, yourMembership(section, ctx, caller, me, members));
      } catch (err) {
        showError(status, (err as Error).message);
      }
    },
  };
  return section;
}
