import { api, ok, waitForJob } from '../api-access.js';
import { field, h, replace, showError, showInfo, statusLine } from '../dom-builder.js';
import type { PageContext } from '../page-context.js';
import type { Section } from './settings-section.js';

// A deletion removes every row of the project from every table: minutes on a large one.
const DELETION_TIMEOUT_MS = 10 * 60_000;

/**
 * A form whose button stays disabled until the box holds exactly `expected`: the typed
 * confirmation GitHub uses for deleting a repository, so that a slip of the mouse deletes nothing.
 * The server checks the same text again (`confirm`).
 */
function typedConfirmation(
  title: string,
  warning: string,
  label: string,
  expected: string,
  buttonLabel: string,
  run: (typed: string, status: HTMLElement) => Promise<void>,
): HTMLElement {
  const input = h('input', {
    name: `confirm-${buttonLabel.toLowerCase().replace(/\W+/g, '-')}`,
    autocomplete: 'off',
    spellcheck: 'false',
    autocapitalize: 'off',
    oninput: () => sync(),
  });
  const button = h('button', { type: 'submit', class: 'danger', disabled: true }, buttonLabel);
  const status = statusLine();
  const sync = (): void => void (button.disabled = input.value !== expected);
  const form = h(
    'form',
    {
      class: 'danger-action',
      onsubmit: async (ev: SubmitEvent) => {
        ev.preventDefault();
        if (input.value !== expected) return;
        button.disabled = input.disabled = true;
        try {
          await run(input.value, status);
        } catch (err) {
          showError(status, (err as Error).message);
          input.disabled = false;
          sync();
        }
      },
    },
    h('h3', {}, title),
    h('p', {}, warning),
    field(label, input),
    button,
    status,
  );
  return form;
}

function deleteProject(ctx: PageContext): HTMLElement {
  const { origin, project } = ctx.scope;
  return typedConfirmation(
    'Delete this project',
    `Deletes ${project} (${origin}) and everything it holds: raw and enriched events, sessions, tags, rules, classifications, jobs, overviews, channels, webhooks, alerts, schedules and exports. It cannot be undone; export what you want to keep first (Sessions, Export).`,
    `To confirm, type the project identifier: ${project}`,
    project,
    'Delete project',
    async (typed, status) => {
      const { job_id } = await ok(
        api().DELETE('/v1/projects', { params: { query: { origin, project, confirm: typed } } }),
      );
      showInfo(status, `Deleting ${project}…`);
      await waitForJob(job_id, `Deleting ${project}`, DELETION_TIMEOUT_MS);
      // The project is gone: the picker moves to another one, and the user to the list.
      await ctx.refreshProjects();
      ctx.navigate(`/projects?deleted=${encodeURIComponent(project)}`);
    },
  );
}

function deleteAccount(ctx: PageContext, identity: string, isEmail: boolean): HTMLElement {
  return typedConfirmation(
    'Delete your account',
    'Deletes your account and all it owns: every project with all its data, and the API keys. You are signed out at once and the deletion runs in the background. It cannot be undone.',
    `To confirm, type your account’s ${isEmail ? 'email' : 'id'}: ${identity}`,
    identity,
    'Delete account',
    async (typed) => {
      await ok(api().DELETE('/v1/users/account', { params: { query: { confirm: typed } } }));
      // No polling: the token stops working as the account goes, so the dashboard leaves at once.
      ctx.signOut('Your account is being deleted. You are signed out.');
    },
  );
}

/** Deleting the project shown, or the whole account: each behind a typed confirmation. */
export function dangerZoneSection(ctx: PageContext): Section {
  const body = h('div', {});
  const status = statusLine();
  const element = h(
    'section',
    { class: 'card settings danger-zone', 'aria-label': 'Danger zone' },
    h('h2', {}, 'Danger zone'),
    body,
    status,
  );
  return {
    element,
    status,
    async reload() {
      replace(body, deleteProject(ctx));
      try {
        const account = await ok(api().GET('/v1/users/account'));
        body.append(deleteAccount(ctx, account.email ?? account.account_id, account.email !== null));
      } catch (err) {
        showError(status, (err as Error).message);
      }
    },
  };
}
