import type { components } from '@spoor/client';
import { api, ok } from '../api-access.js';
import { field, h, replace, showError, showInfo, statusLine } from '../dom-builder.js';
import type { Page, PageContext } from '../page-context.js';
import { saveScope, type Scope } from '../project-scope.js';

type Verification = components['schemas']['VerificationRecord'];

/** The one line a site adds (README, "Put the logger on a site"). */
function snippet(project: string): HTMLElement {
  const code = `<script defer src="${location.origin}/logger.js" data-project="${project}"></script>`;
  return h(
    'div',
    { class: 'snippet' },
    h('p', {}, 'Add the logger to the site’s pages:'),
    h('pre', {}, h('code', {}, code)),
  );
}

/** The TXT record to create, and a button that asks the server to look it up. */
function verification(scope: Scope, record: Verification, verified: boolean): HTMLElement {
  const status = statusLine();
  const button = h(
    'button',
    {
      type: 'button',
      onclick: async () => {
        try {
          const r = await ok(api().POST('/v1/users/projects/verify', { body: scope }));
          if (r.verified) showInfo(status, 'Verified.');
          else showError(status, `Not verified${r.reason ? `: ${r.reason}` : '.'}`);
        } catch (err) {
          showError(status, (err as Error).message);
        }
      },
    },
    `Verify ${new URL(scope.origin).hostname}`,
  );
  if (verified) return h('p', { class: 'ok' }, 'Domain verified: raw events are readable.');
  return h(
    'div',
    { class: 'verification' },
    h('p', {}, 'Create this DNS record, then press Verify. Until then sessions work, raw event listings do not.'),
    h(
      'dl',
      { class: 'summary' },
      h('div', {}, h('dt', {}, 'Type'), h('dd', {}, record.type)),
      h('div', {}, h('dt', {}, 'Name'), h('dd', { class: 'mono' }, record.name)),
      h('div', {}, h('dt', {}, 'Value'), h('dd', { class: 'mono' }, record.value)),
    ),
    button,
    status,
  );
}

function registerForm(ctx: PageContext, result: HTMLElement): HTMLFormElement {
  const origin = h('input', { type: 'url', name: 'origin', required: true, placeholder: 'https://acme.example' });
  const project = h('input', { name: 'project', required: true, placeholder: 'acme/web' });
  const status = statusLine();
  return h(
    'form',
    {
      class: 'card',
      onsubmit: async (ev: SubmitEvent) => {
        ev.preventDefault();
        try {
          const scope = { origin: origin.value.trim(), project: project.value.trim() };
          const reg = await ok(api().POST('/v1/users/projects', { body: scope }));
          const chosen = { origin: reg.origin, project: reg.project };
          saveScope(chosen);
          await ctx.refreshProjects();
          showInfo(status, `Registered ${reg.project}${reg.verified ? ' (verified)' : ''}.`);
          replace(
            result,
            h('h2', {}, reg.project),
            verification(chosen, reg.verification, reg.verified),
            snippet(reg.project),
          );
        } catch (err) {
          showError(status, (err as Error).message);
        }
      },
    },
    h('h2', {}, 'Register a project'),
    field('Origin of the site', origin, 'Scheme, host and port, as the browser sends it.'),
    field('Project identifier', project, 'A slash-separated path, e.g. acme/web.'),
    h('button', { type: 'submit' }, 'Register'),
    status,
  );
}

/** Every project of the account, and registering one with the DNS record that proves it. */
export const projectsPage: Page = async (ctx) => {
  const { projects } = await ok(api().GET('/v1/users/projects'));
  const result = h('section', { class: 'card', 'aria-live': 'polite' });
  const list = projects.length
    ? h(
        'ul',
        { class: 'project-list' },
        projects.map((p) =>
          h(
            'li',
            {},
            h('strong', {}, p.project),
            ' ',
            h('span', { class: 'muted' }, p.origin),
            ' ',
            h('span', { class: p.verified ? 'chip ok' : 'chip warn' }, p.verified ? 'verified' : 'not verified'),
            ' ',
            h('span', { class: 'chip', title: 'Your role' }, `your role: ${p.role}`),
            ' ',
            h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                onclick: async () => {
                  saveScope({ origin: p.origin, project: p.project });
                  await ctx.refreshProjects();
                  ctx.navigate('/overview');
                },
              },
              `Open ${p.project}`,
            ),
          ),
        ),
      )
    : h('p', { class: 'empty' }, 'No project yet: register your site below.');
  // Set by the danger zone after a project was deleted, or by Members after leaving one, so that the user sees it went.
  const deleted = ctx.query.get('deleted');
  const left = ctx.query.get('left');
  const notice = deleted
    ? h('p', { class: 'status info', role: 'status' }, `Deleted ${deleted} and all its data.`)
    : left
      ? h('p', { class: 'status info', role: 'status' }, `You left ${left}.`)
      : null;
  replace(ctx.main, h('h1', { tabindex: -1 }, 'Projects'), notice, list, registerForm(ctx, result), result);
};
