// A public share link's page (issue 45, item 3; docs/dashboard.md, Share links): `/share/<token>`
// shows the project's Overview read-only to anyone holding the link, without an account — the
// same figures, charts and panels as the Overview, asked through POST /v1/shared/{token}/stats.
// Range, comparison, goal and panel filters work and live in the URL; nothing links to sessions,
// settings or other pages. A password-protected link asks for its password first; the grant it
// answers is kept in this tab's sessionStorage until it expires.
import { createSpoorClient, type components } from '@spoor/client';
import { ApiError, type Answer } from '../api-access.js';
import { field, h, replace, showError, statusLine } from '../dom-builder.js';
import { formatTime } from '../display-format.js';
import { filterChips, overviewToolbar } from '../overview-controls.js';
import { overviewFigures } from '../overview-figures.js';
import { parseView, viewPath, type OverviewView } from '../overview-view.js';
import { loadOverview, type StatsAsker } from '../stats-requests.js';
import { charts, PANELS, panels } from './overview-page.js';

export const SHARE_PREFIX = '/share/';

type SharedInfo = components['schemas']['SharedInfo'];
interface Grant {
  grant: string;
  expires_at: number;
}

export const isSharePath = (pathname: string): boolean => /^\/share\/[^/]+\/?$/.test(pathname);

const grantKey = (token: string) => `spoor.share.${token}`;

function storedGrant(token: string): string | null {
  try {
    const g = JSON.parse(sessionStorage.getItem(grantKey(token)) ?? 'null') as Grant | null;
    return g && g.expires_at > Date.now() ? g.grant : null;
  } catch {
    return null;
  }
}

/** The API's answer or its words as an ApiError; never the signed-in dashboard's 401 hook (this page has no account). */
async function answer<T>(call: Promise<Answer<T>>): Promise<T> {
  let got: Answer<T>;
  try {
    got = await call;
  } catch (err) {
    throw new ApiError(0, `The server did not answer (${(err as Error).message})`);
  }
  if (got.response.ok) return got.data as T;
  const detail = (got.error as { detail?: unknown } | null)?.detail;
  throw new ApiError(got.response.status, typeof detail === 'string' ? detail : `${got.response.status}`);
}

const client = (grant: string | null) => createSpoorClient({ baseUrl: location.origin, token: grant });

/** Draws the page for the share link in the address bar into `root`. */
export async function renderSharedPage(root: HTMLElement): Promise<void> {
  const token = decodeURIComponent(location.pathname.slice(SHARE_PREFIX.length).replace(/\/$/, ''));
  const main = h('main', { id: 'main', tabindex: -1 });
  replace(
    root,
    h('a', { class: 'skip-link', href: '#main' }, 'Skip to content'),
    h(
      'header',
      { class: 'app-header' },
      h('span', { class: 'brand' }, 'Spoor'),
      h('span', { class: 'muted' }, 'Shared overview, read-only'),
    ),
    main,
  );
  document.title = 'Shared overview · Spoor';
  replace(main, h('p', { class: 'loading' }, 'Loading…'));
  let info: SharedInfo;
  try {
    info = await answer(client(null).GET('/v1/shared/{token}', { params: { path: { token } } }));
  } catch (err) {
    return replace(
      main,
      h('h1', { tabindex: -1 }, 'Shared overview'),
      h('p', { class: 'status error', role: 'alert' }, (err as Error).message),
    );
  }
  document.title = `${info.project} · shared overview · Spoor`;
  if (info.has_password && !storedGrant(token)) return askPassword(main, token, info);
  await drawOverview(main, token, info);
}

function askPassword(main: HTMLElement, token: string, info: SharedInfo, notice?: string): void {
  const password = h('input', { type: 'password', name: 'password', autocomplete: 'off', required: true });
  const status = statusLine();
  if (notice) showError(status, notice);
  const form = h(
    'form',
    {
      class: 'card login',
      onsubmit: (ev: SubmitEvent) => {
        ev.preventDefault();
        void unlock();
      },
    },
    h('h1', { tabindex: -1 }, `Overview of ${info.project}`),
    h('p', {}, 'This shared overview is protected by a password.'),
    field('Password', password),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Show the overview')),
    status,
  );
  async function unlock(): Promise<void> {
    try {
      const grant = await answer(
        client(null).POST('/v1/shared/{token}/unlock', {
          params: { path: { token } },
          body: { password: password.value },
        }),
      );
      sessionStorage.setItem(grantKey(token), JSON.stringify(grant));
      await drawOverview(main, token, info);
    } catch (err) {
      showError(status, (err as Error).message);
    }
  }
  replace(main, form);
  password.focus();
}

async function drawOverview(main: HTMLElement, token: string, info: SharedInfo): Promise<void> {
  const view = parseView(new URLSearchParams(location.search));
  const go = (v: OverviewView) => {
    history.pushState(null, '', `${SHARE_PREFIX}${encodeURIComponent(token)}?${viewPath(v).split('?')[1] ?? ''}`);
    void drawOverview(main, token, info);
  };
  const api = client(storedGrant(token));
  const ask: StatsAsker = (q) => answer(api.POST('/v1/shared/{token}/stats', { params: { path: { token } }, body: q }));
  let stats;
  try {
    stats = await loadOverview(
      ask,
      view,
      PANELS.map(([d]) => d),
    );
  } catch (err) {
    // The grant expired (or the password changed hands): ask again.
    if (err instanceof ApiError && err.status === 401) {
      sessionStorage.removeItem(grantKey(token));
      return askPassword(main, token, info, err.message);
    }
    return replace(
      main,
      h('h1', { tabindex: -1 }, `Overview of ${info.project}`),
      h('p', { class: 'status error', role: 'alert' }, (err as Error).message),
    );
  }
  const names = (d: 'action' | 'tag') => (stats.panels.get(d) ?? []).map((r) => r.name).sort();
  const shown = stats.figures.date_range;
  const before = stats.figures.compare_range;
  replace(
    main,
    h('h1', { tabindex: -1 }, `Overview of ${info.project}`),
    h('p', { class: 'muted' }, info.origin, info.label ? ` · ${info.label}` : ''),
    overviewToolbar(view, shown, { actions: names('action'), tags: names('tag') }, go),
    filterChips(view, go),
    h(
      'p',
      { class: 'muted range-note' },
      `${formatTime(shown.start)} – ${formatTime(shown.end)}`,
      before ? `, compared with ${formatTime(before.start)} – ${formatTime(before.end)}` : '',
      '.',
    ),
    overviewFigures(stats.figures, view.compare),
    charts(stats),
    panels(stats, view, go),
  );
}
