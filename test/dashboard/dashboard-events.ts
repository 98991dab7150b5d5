import { expect } from 'chai';
import { ApiClient, signUp } from '../support/api-client.js';
import { postAsBrowser, waitFor } from '../support/spoor-harness.js';

const DAY = 86_400_000;

/**
 * What a site's logger would send: two visits today (one that reads two pages from a
 * newsletter link, one that bounces) and an action last seen three days ago, posted as a
 * browser would (the site's Origin, a desktop Chrome user agent).
 */
export async function postVisits(spoorUrl: string, origin: string, project: string): Promise<void> {
  const now = Date.now();
  const ev = (session_id: string, action: string, at: number, path: string, extra: Record<string, unknown> = {}) => ({
    project,
    origin,
    session_id,
    action,
    timestamp: at,
    url: `${origin}${path}`,
    payload: {},
    ...extra,
  });
  const events = [
    ev('visit-reader', 'session_start', now - 60_000, '/?utm_source=newsletter', {
      referrer: 'https://news.example/today',
    }),
    ev('visit-reader', 'pageview', now - 59_000, '/?utm_source=newsletter', { referrer: 'https://news.example/today' }),
    ev('visit-reader', 'click', now - 50_000, '/?utm_source=newsletter', { payload: { text: 'Pricing' } }),
    ev('visit-reader', 'pageview', now - 45_000, '/pricing'),
    ev('visit-reader', 'click', now - 30_000, '/pricing', { payload: { text: 'Buy' } }),
    ev('visit-bounce', 'pageview', now - 20_000, '/'),
    ev('visit-old', 'legacy_signup', now - 3 * DAY, '/signup'),
  ];
  const res = await postAsBrowser(spoorUrl, origin, events);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body.accepted).to.equal(events.length);
}

export interface SeededProject {
  api: ApiClient;
  email: string;
  password: string;
  origin: string;
  project: string;
}

/**
 * An account with a localhost project whose visits are stored (sessions summarised), made
 * through the API, for tests that start signed in rather than walking the sign-up.
 */
export async function seedProject(
  spoorUrl: string,
  project = 'site/web',
  email = `u${Math.random().toString(36).slice(2)}@example.com`,
): Promise<SeededProject> {
  const api = await signUp(spoorUrl, email);
  const origin = `http://localhost:${new URL(spoorUrl).port}`;
  expect((await api.post('/v1/users/projects', { origin, project })).status).to.equal(200);
  await postVisits(spoorUrl, origin, project);
  await waitFor(
    () => api.get('/v1/sessions/visit-reader', { origin, project }),
    (r) => r.body?.event_count === 5,
    60_000,
    'the reader’s five events',
  );
  await waitFor(
    () => api.get('/v1/sessions', { origin, project }),
    (r) => r.body?.sessions?.length === 3,
    60_000,
    'three sessions',
  );
  return { api, email, password: 'correct horse battery', origin, project };
}
