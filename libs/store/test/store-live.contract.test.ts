// The live view's snapshot on both engines (issue 18): active sessions of the window, each
// counted on the path of its newest event, the newest events without IP or user agent; bots,
// older events, other projects and a redelivery left out.
import { expect } from 'chai';
import type { EnrichedEvent } from '@spoor/schemas';
import type { Store } from '../src/index.js';
import { backends, migratedStore } from './store-backends.js';
import { T0, enriched } from './store-fixtures.js';

const P = 'p-live';
const SINCE = T0 - 5 * 60_000;

function ev(
  id: string,
  session: string,
  at: number,
  path: string | null,
  over: Partial<EnrichedEvent> = {},
): EnrichedEvent {
  return enriched({
    event_id: id,
    project_id: P,
    session_id: session,
    action: 'pageview',
    timestamp: T0 + at,
    path,
    ...over,
  });
}

const EVENTS: EnrichedEvent[] = [
  ev('a1', 'a', -60_000, '/'),
  ev('a2', 'a', -30_000, '/pricing'),
  ev('a3', 'a', -20_000, null, { action: 'scroll' }),
  ev('b1', 'b', -50_000, '/pricing', { browser: { name: 'Chrome', version: '131' } }),
  ev('c1', 'c', -10_000, '/docs', {
    geo: { country: 'FR', region: null, city: null, latitude: null, longitude: null },
  }),
  ev('old', 'd', -6 * 60_000, '/old'),
  ev('bot', 'e', -1000, '/', { bot: true }),
  enriched({ event_id: 'x', project_id: 'p-live-other', session_id: 'x', timestamp: T0, path: '/theirs' }),
];

for (const backend of backends) {
  describe(`Live view snapshot: ${backend.name}`, function () {
    this.timeout(60_000);
    let store: Store;

    migratedStore(backend, (s) => (store = s));

    before(async function () {
      await store.events.insertEnriched(EVENTS);
      await store.events.insertEnriched(EVENTS.slice(0, 2)); // a redelivery counts once
    });

    it('counts active sessions and the page each is on, and lists the newest events without IP or user agent', async function () {
      const live = await store.live.snapshot(P, { since: SINCE, topPages: 10, latest: 3 });
      expect(live.visitors).to.equal(3);
      expect(live.pages).to.deep.equal([
        { path: '/pricing', visitors: 2 },
        { path: '/docs', visitors: 1 },
      ]);
      expect(live.events.map((e) => e.event_id)).to.deep.equal(['c1', 'a3', 'a2']);
      expect(live.events[0]).to.deep.equal({
        event_id: 'c1',
        action: 'pageview',
        path: '/docs',
        timestamp: T0 - 10_000,
        session_id: 'c',
        browser: 'Firefox',
        os: 'Linux',
        device: 'desktop',
        country: 'FR',
      });
      expect(JSON.stringify(live)).not.to.contain('203.0.113').and.not.to.contain('Mozilla');
    });

    it('honours the limits and answers an empty project', async function () {
      const top = await store.live.snapshot(P, { since: SINCE, topPages: 1, latest: 0 });
      expect(top.pages).to.deep.equal([{ path: '/pricing', visitors: 2 }]);
      expect(top.events).to.deep.equal([]);
      expect(await store.live.snapshot('p-none', { since: SINCE, topPages: 5, latest: 5 })).to.deep.equal({
        visitors: 0,
        pages: [],
        events: [],
      });
    });

    // Issue 43: a session's page is that of its last event by time, then event id, whichever
    // of two events in one millisecond was stored first.
    it('puts a session whose last two events share a millisecond on the page of the larger event id', async function () {
      const tie = (id: string, session: string, path: string) => ({
        ...ev(id, session, -1000, path),
        project_id: 'p-tie',
      });
      await store.events.insertEnriched([tie('s1-a', 's1', '/a')]);
      await store.events.insertEnriched([tie('s1-b', 's1', '/b')]);
      await store.events.insertEnriched([tie('s2-b', 's2', '/b')]);
      await store.events.insertEnriched([tie('s2-a', 's2', '/a')]);
      const live = await store.live.snapshot('p-tie', { since: SINCE, topPages: 5, latest: 0 });
      expect(live.pages).to.deep.equal([{ path: '/b', visitors: 2 }]);
    });
  });
}
