import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The pages a site owner would write: the logger's one-line snippet and some things to click. */
export interface TestSite {
  /** `http://127.0.0.1:<port>`: the site's origin, another port than Spoor's (real CORS). */
  origin: string;
  close(): Promise<void>;
}

const BODY = `
  <nav><a id="to-pricing" href="/pricing">Pricing</a> <a id="to-faq" href="#faq">FAQ</a></nav>
  <main class="content">
    <button id="buy" class="btn primary">Buy   now</button>
    <label for="email">Email</label> <input id="email" name="email" value="">
    <div style="height: 4000px">tall</div>
    <p id="faq">Questions</p>
  </main>
  <script>
    // A single-page app's router: in-page links change the URL with pushState.
    document.getElementById('to-pricing').addEventListener('click', (e) => {
      e.preventDefault();
      history.pushState({}, '', '/pricing');
      document.title = 'Pricing';
    });
  </script>`;

const page = (title: string, head: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${BODY}</body></html>`;

/**
 * Pages, each for one project of the test (`?project=` picks another for `/` and `/pricing`):
 * - `/` and `/pricing`: the <script> snippet with its defaults, project `site/tag`;
 * - `/module`: the ES module form with `session: false`, and a custom event;
 * - `/optout`: the visitor opted out before the logger loaded;
 * - `/dnt`: a logger configured to honour Do Not Track (the test switches DNT on or off).
 */
export async function startTestSite(
  spoorUrl: string,
  projects: { tag: string; module: string; optOut: string; dnt: string },
): Promise<TestSite> {
  const snippet = (project: string, extra = '') =>
    `<script defer src="${spoorUrl}/logger.js" data-project="${project}"${extra}></script>`;
  const pages: Record<string, (project: string | null) => string> = {
    '/': (p) => page('Home', snippet(p ?? projects.tag)),
    '/pricing': (p) => page('Pricing', snippet(p ?? projects.tag)),
    '/module': () =>
      page(
        'Module',
        `<script type="module">
      import * as spoor from '${spoorUrl}/logger.mjs';
      spoor.init({ endpoint: '${spoorUrl}/v1/event', project: '${projects.module}', options: { session: false, clicks: true, navigation: true } });
      spoor.track('signup', { plan: 'team', seats: 3 });
      window.spoorModule = spoor;
    </script>`,
      ),
    '/optout': () =>
      page('Opted out', `<script>localStorage.setItem('spoor_optout', '1')</script>${snippet(projects.optOut)}`),
    '/dnt': () => page('DNT', snippet(projects.dnt, ' data-dnt="true"')),
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    // No icon, and no 404 for it in the console (a console error fails a browser test).
    if (url.pathname === '/favicon.ico') return void res.writeHead(204).end();
    const html = pages[url.pathname]?.(url.searchParams.get('project'));
    if (!html) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
