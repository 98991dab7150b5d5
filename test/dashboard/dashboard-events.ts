import { expect } from 'chai';
import { DESKTOP_CHROME } from '../support/browser-visitor.js';
import { post } from '../support/spoor-harness.js';

const DAY = 86_400_000;

/**
 * What a site's logger would send: two visits today (one that reads two pages from a
 * newsletter link, one that bounces) and an action last seen three days ago, posted as a
 * browser would (the site's Origin, a desktop Chrome user agent).
 */
export async function postVisits(spoorUrl: string, origin: string, project: string): Promise<void> {
  const now = Date.now();
  const ev = (session_id: string, action: string, at: number, path: string, extra: Record<string, unknown> = {}) =>
    ({ project, origin, session_id, action, timestamp: at, url: `${origin}${path}`, payload: {}, ...extra });
  const events = [
    ev('visit-reader', 'session_start', now - 60_000, '/?utm_source=newsletter', { referrer: 'https://news.example/today' }),
    ev('visit-reader', 'pageview', now - 59_000, '/?utm_source=newsletter', { referrer: 'https://news.example/today' }),
    ev('visit-reader', 'click', now - 50_000, '/?utm_source=newsletter', { payload: { text: 'Pricing' } }),
    ev('visit-reader', 'pageview', now - 45_000, '/pricing'),
    ev('visit-reader', 'click', now - 30_000, '/pricing', { payload: { text: 'Buy' } }),
    ev('visit-bounce', 'pageview', now - 20_000, '/'),
    ev('visit-old', 'legacy_signup', now - 3 * DAY, '/signup'),
  ];
  const res = await post(`${spoorUrl}/v1/event/batch`, { events }, { origin, 'user-agent': DESKTOP_CHROME });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body.accepted).to.equal(events.length);
}
