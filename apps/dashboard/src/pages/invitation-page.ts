import { api, ApiError, ok } from '../api-access.js';
import { storedToken } from '../auth-store.js';
import { h, replace, showError, statusLine } from '../dom-builder.js';
import type { Page } from '../page-context.js';
import { saveScope } from '../project-scope.js';

/** Where the invitation mail's link points (SPOOR_PUBLIC_URL/invitations/accept#token=…, docs/api.md). */
export const INVITATION_PATH = '/invitations/accept';

/**
 * The token of an invitation link, kept in sessionStorage (this tab only, gone when it closes)
 * between opening the link, signing in or up, and accepting: the URL loses it at once.
 */
const TOKEN_KEY = 'spoor.invitation';

/**
 * Moves `#token=…` from the URL into sessionStorage and drops the fragment from the address bar
 * and the history (replaceState), so the one-time token is not left in the URL, a bookmark or the
 * back button. Called before anything is drawn.
 */
export function captureInvitationToken(): void {
  if (location.pathname !== INVITATION_PATH) return;
  const token = new URLSearchParams(location.hash.replace(/^#/, '')).get('token');
  if (!token) return;
  sessionStorage.setItem(TOKEN_KEY, token);
  history.replaceState(null, '', INVITATION_PATH);
}

export const pendingToken = (): string | null => sessionStorage.getItem(TOKEN_KEY);
const forgetToken = (): void => sessionStorage.removeItem(TOKEN_KEY);

/** What the sign-in form says above itself when an invitation waits. */
export const SIGN_IN_TO_ACCEPT = 'Sign in, or create an account, to accept the invitation to a Spoor project.';

/**
 * Accepting an invitation (POST /v1/invitations/accept): any signed-in account holding the link
 * may (docs/security.md, Invitations); the API tells which project only once accepted, so the page
 * offers the button with the account it will join as. Accepted: that project is chosen and its
 * Overview shown. An unknown, expired, revoked or used token: the API's words, and the token dropped.
 */
export const invitationPage: Page = async (ctx) => {
  const token = pendingToken();
  const heading = h('h1', { tabindex: -1 }, 'Invitation');
  if (!token) {
    replace(
      ctx.main,
      heading,
      h('p', {}, 'There is no invitation to accept here: open the link of the invitation mail again.'),
      h('p', {}, h('a', { href: '/projects' }, 'Your projects')),
    );
    return;
  }
  const status = statusLine();
  const button = h('button', { type: 'button' }, 'Accept invitation');
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const joined = await ok(api().POST('/v1/invitations/accept', { body: { token } }));
      forgetToken();
      saveScope({ origin: joined.origin, project: joined.project });
      await ctx.refreshProjects();
      ctx.navigate('/overview');
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        // Used, revoked, expired or unknown: it will not work again, so it is not kept.
        forgetToken();
        replace(
          ctx.main,
          heading,
          h('p', { class: 'status error', role: 'alert' }, err.message),
          h(
            'p',
            {},
            'Ask whoever invited you to send a new invitation. ',
            h('a', { href: '/projects' }, 'Your projects'),
          ),
        );
        return;
      }
      showError(status, (err as Error).message);
      button.disabled = false;
    }
  });
  const email = storedToken()?.email ?? 'this account';
  replace(
    ctx.main,
    heading,
    h(
      'p',
      {},
      'You have been invited to a Spoor project. Accepting makes ',
      h('strong', {}, email),
      ' a member of it.',
    ),
    h(
      'p',
      { class: 'muted' },
      'Not the right account? Sign out and sign in with another: the invitation waits in this tab.',
    ),
    h('div', { class: 'actions' }, button),
    status,
  );
};
