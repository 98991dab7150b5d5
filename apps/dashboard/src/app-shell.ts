import { api, ok } from './api-access.js';
import { storedToken } from './auth-store.js';
import { h, replace } from './dom-builder.js';
import { saveScope, scopeKey, storedScope, type Scope } from './project-scope.js';

export interface Shell {
  main: HTMLElement;
  /** Marks the current page in the navigation. */
  mark(pathname: string): void;
  refreshProjects(): Promise<void>;
}

/** Header (project picker, account, sign-out), navigation and the <main> pages render into. */
export function renderShell(
  root: HTMLElement,
  nav: Array<[path: string, label: string]>,
  onScopeChange: () => void,
  onSignOut: () => void,
): Shell {
  const picker = h('select', { id: 'project-picker', onchange: () => pick() });
  // The caller's role on the chosen project (issue 45): what the pages let it do follows it.
  const role = h('span', { class: 'chip role', id: 'project-role', title: 'Your role on this project' });
  const links = nav.map(([path, label]) => h('a', { href: path }, label));
  const main = h('main', { id: 'main', tabindex: -1 });
  replace(
    root,
    h('a', { class: 'skip-link', href: '#main' }, 'Skip to content'),
    h(
      'header',
      { class: 'app-header' },
      h('a', { class: 'brand', href: '/overview' }, 'Spoor'),
      h('label', { class: 'picker' }, h('span', {}, 'Project'), picker),
      role,
      h('span', { class: 'account' }, storedToken()?.email ?? ''),
      h('button', { type: 'button', class: 'secondary', onclick: onSignOut }, 'Sign out'),
    ),
    h('nav', { class: 'app-nav', 'aria-label': 'Pages' }, links),
    main,
  );
  let projects: Array<Scope & { role: string }> = [];
  function showRole(): void {
    const chosen = projects.find((p) => scopeKey(p) === picker.value);
    role.textContent = chosen ? chosen.role : '';
    role.hidden = !chosen;
  }
  function pick(): void {
    const chosen = projects.find((p) => scopeKey(p) === picker.value) ?? null;
    saveScope(chosen ? { origin: chosen.origin, project: chosen.project } : null);
    showRole();
    onScopeChange();
  }
  async function refreshProjects(): Promise<void> {
    projects = (await ok(api().GET('/v1/users/projects'))).projects.map(({ origin, project, role }) => ({
      origin,
      project,
      role,
    }));
    const current = storedScope();
    const first = projects[0];
    const kept =
      current && projects.some((p) => scopeKey(p) === scopeKey(current))
        ? current
        : first
          ? { origin: first.origin, project: first.project }
          : null;
    saveScope(kept);
    replace(
      picker,
      projects.length ? null : h('option', { value: '' }, 'No project yet'),
      projects.map((p) => h('option', { value: scopeKey(p) }, `${p.project} (${p.origin})`)),
    );
    picker.value = kept ? scopeKey(kept) : '';
    showRole();
  }
  function mark(pathname: string): void {
    for (const a of links) {
      const here = pathname === a.pathname || pathname.startsWith(`${a.pathname}/`);
      if (here) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
  }
  return { main, mark, refreshProjects };
}
