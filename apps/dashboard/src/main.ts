import 'uplot/dist/uPlot.min.css';
import './dashboard.css';
import { handleUnauthorized } from './api-access.js';
import { interceptLinks, match, route } from './app-router.js';
import { renderShell, type Shell } from './app-shell.js';
import { clearToken, storedToken } from './auth-store.js';
import { h, replace } from './dom-builder.js';
import type { Page } from './page-context.js';
import { storedScope } from './project-scope.js';
import { actionsPage } from './pages/actions-page.js';
import { healthPage } from './pages/health-page.js';
import {
  captureInvitationToken,
  INVITATION_PATH,
  invitationPage,
  pendingToken,
  SIGN_IN_TO_ACCEPT,
} from './pages/invitation-page.js';
import { livePage } from './pages/live-page.js';
import { renderLoginPage } from './pages/login-page.js';
import { overviewPage } from './pages/overview-page.js';
import { projectsPage } from './pages/projects-page.js';
import { rulesPage } from './pages/rules-page.js';
import { sessionPage } from './pages/session-page.js';
import { sessionsPage } from './pages/sessions-page.js';
import { settingsPage } from './pages/settings-page.js';
import { isSharePath, renderSharedPage } from './pages/shared-page.js';
import { tagsPage } from './pages/tags-page.js';
import { transitionsPage } from './pages/transitions-page.js';

interface PageRoute {
  page: Page;
  title: string;
  needsProject: boolean;
}
const page = (p: Page, title: string, needsProject = true): PageRoute => ({ page: p, title, needsProject });

/** The pages, in the navigation's order; every path without a parameter is a link there. */
const paths: Array<[string, PageRoute]> = [
  ['/overview', page(overviewPage, 'Overview')],
  // The stored overviews, less often opened than the Overview: loaded on first visit.
  ['/reports', page((ctx) => import('./pages/reports-page.js').then((m) => m.reportsPage(ctx)), 'Reports')],
  ['/live', page(livePage, 'Live')],
  ['/sessions', page(sessionsPage, 'Sessions')],
  ['/sessions/:id', page(sessionPage, 'Session')],
  ['/actions', page(actionsPage, 'Actions')],
  ['/rules', page(rulesPage, 'Rules')],
  ['/tags', page(tagsPage, 'Tags')],
  ['/transitions', page(transitionsPage, 'Transitions')],
  // Loaded on first visit, as the YAML parser is: the first load stays within its size (docs/dashboard.md).
  ['/funnels', page((ctx) => import('./pages/funnels-page.js').then((m) => m.funnelsPage(ctx)), 'Funnels')],
  ['/retention', page((ctx) => import('./pages/retention-page.js').then((m) => m.retentionPage(ctx)), 'Retention')],
  ['/settings', page(settingsPage, 'Settings')],
  // Read by owners and admins now and then (issue 45): loaded on first visit.
  ['/audit', page((ctx) => import('./pages/audit-page.js').then((m) => m.auditPage(ctx)), 'Audit')],
  ['/health', page(healthPage, 'Health', false)],
  ['/projects', page(projectsPage, 'Projects', false)],
];
// The invitation mail's link: a page of its own, not in the navigation.
const routes = [...paths, [INVITATION_PATH, page(invitationPage, 'Invitation', false)] as const].map(([path, r]) =>
  route(path, r),
);
const nav = paths.filter(([path]) => !path.includes(':')).map(([path, r]): [string, string] => [path, r.title]);

const root = document.getElementById('app')!;
let shell: Shell | null = null;
/** Bumped by every render, so that a slow page finishing late does not draw over a newer one. */
let generation = 0;
/** True after a person navigated (a link, back/forward): the new page's heading then takes focus. */
let moveFocus = false;

function navigate(path: string, replaceState = false): void {
  moveFocus = !replaceState;
  if (replaceState) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  void render();
}

function signOut(message: string | null): void {
  clearToken();
  shell = null;
  const notice = message ? `?notice=${encodeURIComponent(message)}` : '';
  history.pushState(null, '', `/login${notice}`);
  void render();
}

async function render(): Promise<void> {
  const mine = ++generation;
  // A public share link (issue 45): its own read-only page, with or without an account.
  if (isSharePath(location.pathname)) {
    shell = null;
    return renderSharedPage(root);
  }
  captureInvitationToken();
  const { pathname, search } = location;
  const query = new URLSearchParams(search);
  if (!storedToken()) {
    shell = null;
    // Opened from an invitation mail: sign in or up on that page, then accept it there.
    const invited = pathname === INVITATION_PATH && pendingToken() !== null;
    if (pathname !== '/login' && !invited) history.replaceState(null, '', `/login${search}`);
    return renderLoginPage(root, invited ? SIGN_IN_TO_ACCEPT : query.get('notice'), () =>
      navigate(pendingToken() ? INVITATION_PATH : '/', true),
    );
  }
  if (!shell) {
    shell = renderShell(
      root,
      nav,
      () => void render(),
      () => signOut('You are signed out.'),
    );
    try {
      await shell.refreshProjects();
    } catch (err) {
      // A 401 has already signed out and drawn the login page; anything else is shown.
      if (mine === generation)
        replace(shell.main, h('p', { class: 'status error', role: 'alert' }, (err as Error).message));
      return;
    }
  }
  const scope = storedScope();
  if (pathname === '/' || pathname === '/login') return navigate(scope ? '/overview' : '/projects', true);
  const found = match(routes, pathname);
  shell.mark(pathname);
  const main = shell.main;
  if (!found)
    return void replace(
      main,
      h('h1', { tabindex: -1 }, 'Not found'),
      h('p', {}, h('a', { href: '/overview' }, 'Back to the overview')),
    );
  if (found.value.needsProject && !scope) return navigate('/projects', true);
  document.title = `${found.value.title} · Spoor`;
  replace(main, h('p', { class: 'loading' }, 'Loading…'));
  const target = h('div', { class: 'page' });
  try {
    await found.value.page({
      main: target,
      scope: scope!,
      params: found.params,
      query,
      navigate,
      refreshProjects: () => shell?.refreshProjects() ?? Promise.resolve(),
      signOut,
    });
  } catch (err) {
    replace(
      target,
      h('h1', { tabindex: -1 }, found.value.title),
      h('p', { class: 'status error', role: 'alert' }, (err as Error).message),
    );
  }
  if (mine !== generation) return;
  replace(main, target);
  // After a person's navigation, focus goes to the new page's heading (a screen reader reads
  // where it landed); on a load or a redirect it stays at the top, so Tab reaches the skip link.
  if (moveFocus) target.querySelector<HTMLElement>('h1')?.focus({ preventScroll: true });
}

handleUnauthorized((message) => signOut(`Please sign in again (${message}).`));
interceptLinks(document.body, (path) => navigate(path));
window.addEventListener('popstate', () => {
  moveFocus = true;
  void render();
});
void render();
