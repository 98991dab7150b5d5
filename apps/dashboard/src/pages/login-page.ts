import { api, ApiError, ok } from '../api-access.js';
import { saveToken } from '../auth-store.js';
import { field, h, replace, showError, statusLine } from '../dom-builder.js';

/**
 * Sign-in and sign-up on one form (the built-in issuer, POST /v1/auth/login and /signup). A
 * message (expired token, signed out) arrives in `notice`.
 */
export function renderLoginPage(root: HTMLElement, notice: string | null, done: () => void): void {
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'username', required: true });
  const password = h('input', {
    type: 'password',
    name: 'password',
    autocomplete: 'current-password',
    required: true,
    minlength: 8,
  });
  const status = statusLine();
  if (notice) status.textContent = notice;
  async function submit(mode: 'login' | 'signup'): Promise<void> {
    if (!form.reportValidity()) return;
    const body = { email: email.value.trim(), password: password.value };
    try {
      const token = await ok(
        mode === 'login' ? api().POST('/v1/auth/login', { body }) : api().POST('/v1/auth/signup', { body }),
      );
      saveToken({ ...token, email: body.email });
      done();
    } catch (err) {
      showError(
        status,
        mode === 'login' && err instanceof ApiError && err.status === 401
          ? 'Wrong email or password.'
          : (err as Error).message,
      );
    }
  }
  const form = h(
    'form',
    {
      class: 'card login',
      onsubmit: (ev: SubmitEvent) => {
        ev.preventDefault();
        void submit('login');
      },
    },
    h('h1', { tabindex: -1 }, 'Spoor'),
    h('p', {}, 'Sign in to see your sites’ traffic, sessions, rules and digests.'),
    field('Email', email),
    field('Password', password, 'At least 8 characters.'),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, 'Sign in'),
      h('button', { type: 'button', class: 'secondary', onclick: () => void submit('signup') }, 'Create account'),
    ),
    status,
  );
  replace(root, h('main', { id: 'main', class: 'login-main' }, form));
  document.title = 'Sign in · Spoor';
  email.focus();
}
