// Contract cases for the backfill's reads (sessions.page/count, events.eventsOfSessions);
// registered by store.contract.test.ts inside each backend's suite.
import { expect } from 'chai';
import type { SessionState } from '@spoor/schemas';
import type { Store } from '../src/index.js';
import { INJECTION, T0, enriched, session } from './store-fixtures.js';

export function backfillCases(store: () => Store): void {
  describe('session pages and counts', function () {
    const p = 'p-page';
    // Ids out of insertion order; 'bb' sorts between 'b' and 'c'.
    const ids = ['g', 'c', 'a', 'bb', 'f', 'b', 'e', 'd'];
    const states = ids.map((id, i) => session({ project_id: p, session_id: id, event_count: i + 1 }));
    const byId = [...states].sort((x, y) => (x.session_id < y.session_id ? -1 : 1));

    before(async function () {
      const { sessions } = store();
      await sessions.upsert(states.slice(0, 4));
      await sessions.upsert(states.slice(4));
      // Equal ids in a neighbouring project must not leak into the pages or the count.
      await sessions.upsert(
        ['a', 'bb', 'c0', 'z'].map((id) => session({ project_id: 'p-page-other', session_id: id })),
      );
    });

    it('walks every whole state in session_id order, page by page, after an exclusive cursor', async function () {
      const { sessions } = store();
      const seen: SessionState[] = [];
      let after: string | null = null;
      let pages = 0;
      for (;;) {
        const page: SessionState[] = await sessions.page(p, after, 3);
        if (page.length === 0) break;
        expect(page.length).to.be.at.most(3);
        seen.push(...page);
        after = page[page.length - 1]!.session_id;
        pages += 1;
        expect(pages).to.be.below(10);
      }
      expect(pages).to.equal(3);
      expect(seen).to.deep.equal(byId);
      expect((await sessions.page(p, null, 3)).map((s) => s.session_id)).to.deep.equal(['a', 'b', 'bb']);
      expect((await sessions.page(p, 'b', 2)).map((s) => s.session_id)).to.deep.equal(['bb', 'c']);
      // A cursor need not be a stored id.
      expect((await sessions.page(p, 'c0', 10)).map((s) => s.session_id)).to.deep.equal(['d', 'e', 'f', 'g']);
      expect(await sessions.page(p, 'g', 10)).to.deep.equal([]);
      expect(await sessions.page(p, null, 0)).to.deep.equal([]);
      expect(await sessions.page('p-page-none', null, 10)).to.deep.equal([]);
    });

    it('pages the newest state of a session once, and counts sessions, not versions', async function () {
      const { sessions } = store();
      expect(await sessions.count(p)).to.equal(8);
      const newer = session({ project_id: p, session_id: 'c', event_count: 99, updated_at: T0 + 999_999 });
      await sessions.upsert([newer]);
      await sessions.upsert([{ ...newer, event_count: 1, updated_at: T0 }]);
      expect(await sessions.count(p)).to.equal(8);
      expect(await sessions.page(p, 'bb', 1)).to.deep.equal([newer]);
      expect(await sessions.count('p-page-other')).to.equal(4);
      expect(await sessions.count('p-page-none')).to.equal(0);
    });
  });

  describe('events of many sessions', function () {
    const p = 'p-of-sessions';

    before(async function () {
      const { events } = store();
      await events.insertEnriched([
        enriched({ project_id: p, event_id: 'a2', session_id: 'A', timestamp: T0 + 20 }),
        enriched({ project_id: p, event_id: 'c1', session_id: 'C', timestamp: T0 + 10 }),
        enriched({ project_id: p, event_id: 'b1', session_id: 'B', timestamp: T0 + 5 }),
        enriched({ project_id: p, event_id: 'a1', session_id: 'A', timestamp: T0 + 10 }),
      ]);
      await events.insertEnriched([
        enriched({ project_id: p, event_id: 'c0', session_id: 'C', timestamp: T0 + 1 }),
        // A repeat of a stored event, and the same ids in another project.
        enriched({ project_id: p, event_id: 'a1', session_id: 'A', timestamp: T0 + 10 }),
        enriched({ project_id: 'p-of-sessions-other', event_id: 'a1', session_id: 'A', timestamp: T0 }),
        enriched({ project_id: 'p-of-sessions-other', event_id: 'x1', session_id: 'C', timestamp: T0 }),
      ]);
    });

    it('returns every event of the sessions asked for, oldest first then by event_id', async function () {
      const { events } = store();
      const ids = async (sessionIds: string[]) => (await events.eventsOfSessions(p, sessionIds)).map((e) => e.event_id);
      expect(await ids(['C', 'none', 'A'])).to.deep.equal(['c0', 'a1', 'c1', 'a2']);
      expect(await ids(['B'])).to.deep.equal(['b1']);
      expect(await ids(['A', 'B', 'C', 'A'])).to.deep.equal(['c0', 'b1', 'a1', 'c1', 'a2']);
      expect(await events.eventsOfSessions(p, [])).to.deep.equal([]);
      expect(await events.eventsOfSessions(p, ['none'])).to.deep.equal([]);
      const all = await events.eventsOfSessions(p, ['A']);
      expect(all).to.deep.equal([
        enriched({ project_id: p, event_id: 'a1', session_id: 'A', timestamp: T0 + 10 }),
        enriched({ project_id: p, event_id: 'a2', session_id: 'A', timestamp: T0 + 20 }),
      ]);
    });

    it('takes hundreds of session ids in one call and keeps projects apart', async function () {
      const { events } = store();
      const many = Array.from({ length: 800 }, (_, i) => `missing-session-${String(i).padStart(4, '0')}`);
      const got = await events.eventsOfSessions(p, [...many.slice(0, 400), 'A', ...many.slice(400), 'C']);
      expect(got.map((e) => e.event_id)).to.deep.equal(['c0', 'a1', 'c1', 'a2']);
      expect(got.every((e) => e.project_id === p)).to.equal(true);
      const other = await events.eventsOfSessions('p-of-sessions-other', ['A', 'C', 'B']);
      expect(other.map((e) => `${e.project_id}/${e.event_id}`)).to.deep.equal([
        'p-of-sessions-other/a1',
        'p-of-sessions-other/x1',
      ]);
    });

    it('stores hostile session ids verbatim', async function () {
      const e = enriched({ project_id: p, event_id: 'inj-1', session_id: INJECTION, timestamp: T0 + 3 });
      await store().events.insertEnriched([e]);
      expect(await store().events.eventsOfSessions(p, [INJECTION])).to.deep.equal([e]);
    });
  });
}
