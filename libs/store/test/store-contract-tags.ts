// Contract cases for session tags; registered by store.contract.test.ts inside each backend's suite.
import { expect } from 'chai';
import type { SessionTag } from '@spoor/schemas';
import type { Store } from '../src/index.js';
import { INJECTION, T0 } from './store-fixtures.js';

const tagged = (project_id: string, session_id: string, tag: string, at: number): SessionTag =>
  ({ project_id, session_id, tag, tagged_at: T0 + at });

export function tagCases(store: () => Store): void {
  describe('session tags', function () {
    const p = 'p-tags';

    before(async function () {
      await store().tags.add([
        tagged(p, 's1', 'buyer', 1000),
        tagged(p, 's2', 'buyer', 3000),
        tagged(p, 's3', 'buyer', 2000),
        tagged(p, 's3b', 'buyer', 2000),
        tagged(p, 's1', 'returning', 1500),
        tagged(p, 's2', 'churn-risk', 500),
      ]);
    });

    it('lists distinct tags with their last use, most recent first', async function () {
      expect(await store().tags.list(p)).to.deep.equal([
        { tag: 'buyer', last_seen: T0 + 3000 },
        { tag: 'returning', last_seen: T0 + 1500 },
        { tag: 'churn-risk', last_seen: T0 + 500 },
      ]);
      expect(await store().tags.list('p-none')).to.deep.equal([]);
    });

    it('lists one session\'s tags, most recent first', async function () {
      expect(await store().tags.ofSession(p, 's1')).to.deep.equal([
        { tag: 'returning', last_seen: T0 + 1500 },
        { tag: 'buyer', last_seen: T0 + 1000 },
      ]);
      expect(await store().tags.ofSession(p, 'none')).to.deep.equal([]);
    });

    it('lists tagged sessions newest first (ties by id), windowed on tagged_at with the end exclusive, and limits', async function () {
      const ids = async (q: { window_start?: number; window_end?: number; limit: number }) =>
        (await store().tags.sessions(p, 'buyer', q)).map((s) => s.session_id);
      expect(await store().tags.sessions(p, 'buyer', { limit: 1 })).to.deep.equal([{ session_id: 's2', tagged_at: T0 + 3000 }]);
      expect(await ids({ limit: 10 })).to.deep.equal(['s2', 's3', 's3b', 's1']);
      expect(await ids({ window_start: T0 + 1000, window_end: T0 + 3000, limit: 10 })).to.deep.equal(['s3', 's3b', 's1']);
      expect(await ids({ window_start: T0 + 2000, window_end: T0 + 2001, limit: 10 })).to.deep.equal(['s3', 's3b']);
      expect(await ids({ window_start: T0 + 1001, limit: 10 })).to.deep.equal(['s2', 's3', 's3b']);
      expect(await ids({ window_end: T0 + 1000, limit: 10 })).to.deep.equal([]);
      expect(await ids({ window_start: T0 + 1000, limit: 2 })).to.deep.equal(['s2', 's3']);
      expect(await ids({ limit: 0 })).to.deep.equal([]);
      expect(await store().tags.sessions(p, 'no-such-tag', { limit: 10 })).to.deep.equal([]);
    });

    it('is idempotent and keeps the latest tagged_at, whatever the arrival order', async function () {
      const q = 'p-tags-idem';
      const { tags } = store();
      await tags.add([tagged(q, 'a', 'vip', 100), tagged(q, 'a', 'vip', 300), tagged(q, 'a', 'vip', 200)]);
      await tags.add([tagged(q, 'a', 'vip', 300)]);
      await tags.add([tagged(q, 'a', 'vip', 50)]);
      await tags.add([]);
      expect(await tags.ofSession(q, 'a')).to.deep.equal([{ tag: 'vip', last_seen: T0 + 300 }]);
      expect(await tags.sessions(q, 'vip', { limit: 10 })).to.deep.equal([{ session_id: 'a', tagged_at: T0 + 300 }]);
      // The older tagging no longer counts: the session left the window it was first tagged in.
      expect(await tags.sessions(q, 'vip', { window_start: T0, window_end: T0 + 150, limit: 10 })).to.deep.equal([]);
      await tags.add([tagged(q, 'a', 'vip', 400)]);
      expect(await tags.list(q)).to.deep.equal([{ tag: 'vip', last_seen: T0 + 400 }]);
    });

    it('never shows project B\'s tags to project A, even on equal session ids', async function () {
      const { tags } = store();
      await tags.add([tagged('iso-tag-a', 'S', 'shared', 10), tagged('iso-tag-b', 'S', 'shared', 20), tagged('iso-tag-b', 'S', 'only-b', 30)]);
      expect(await tags.list('iso-tag-a')).to.deep.equal([{ tag: 'shared', last_seen: T0 + 10 }]);
      expect(await tags.ofSession('iso-tag-a', 'S')).to.deep.equal([{ tag: 'shared', last_seen: T0 + 10 }]);
      expect(await tags.sessions('iso-tag-a', 'shared', { limit: 10 })).to.deep.equal([{ session_id: 'S', tagged_at: T0 + 10 }]);
      expect(await tags.sessions('iso-tag-a', 'only-b', { limit: 10 })).to.deep.equal([]);
    });

    it('stores hostile values verbatim', async function () {
      await store().tags.add([tagged(INJECTION, INJECTION, INJECTION, 1)]);
      expect(await store().tags.sessions(INJECTION, INJECTION, { limit: 10 })).to.deep.equal([{ session_id: INJECTION, tagged_at: T0 + 1 }]);
      expect(await store().tags.list(INJECTION)).to.deep.equal([{ tag: INJECTION, last_seen: T0 + 1 }]);
    });
  });
}
