// Contract cases for session tags; registered by store.contract.test.ts inside each backend's suite.
import { expect } from 'chai';
import type { SessionTag } from '@spoor/schemas';
import type { ListQuery, Store } from '../src/index.js';
import { INJECTION, T0, tagFact } from './store-fixtures.js';

type Extra = Partial<Pick<SessionTag, 'source' | 'removed' | 'changed_at' | 'tagged_at'>>;

/** A fact tagged at T0 + at; changed_at defaults to the same instant. */
const tagged = (project_id: string, session_id: string, tag: string, at: number, extra: Extra = {}): SessionTag =>
  tagFact({ project_id, session_id, tag, tagged_at: T0 + at, ...extra });
/** The same fact taken back at T0 + changed. */
const removed = (project_id: string, session_id: string, tag: string, changed: number, extra: Extra = {}): SessionTag =>
  tagFact({ project_id, session_id, tag, tagged_at: T0, removed: true, changed_at: T0 + changed, ...extra });

export function tagCases(store: () => Store): void {
  describe('session tags', function () {
    const p = 'p-tags';

    before(async function () {
      await store().tags.add([
        tagged(p, 's1', 'buyer', 1000),
        tagged(p, 's2', 'buyer', 3000),
        tagged(p, 's3', 'buyer', 2000),
        tagged(p, 's3b', 'buyer', 2000, { source: 'r-buyer' }),
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

    it("lists one session's tags, most recent first", async function () {
      expect(await store().tags.ofSession(p, 's1')).to.deep.equal([
        { tag: 'returning', last_seen: T0 + 1500 },
        { tag: 'buyer', last_seen: T0 + 1000 },
      ]);
      expect(await store().tags.ofSession(p, 'none')).to.deep.equal([]);
    });

    it('lists the tags of many sessions in one read, as ofSession does one by one', async function () {
      const ids = ['s1', 's2', 's3', 'none'];
      const each = (
        await Promise.all(
          ids.map(async (id) => (await store().tags.ofSession(p, id)).map((t) => ({ session_id: id, ...t }))),
        )
      ).flat();
      const many = await store().tags.ofSessions(p, ids);
      expect(many).to.deep.equal(each);
      expect(many.length).to.be.greaterThan(2);
      expect(await store().tags.ofSessions(p, [])).to.deep.equal([]);
      expect(await store().tags.ofSessions('p-other', ids)).to.deep.equal([]);
    });

    it('lists tagged sessions newest first (ties by id), windowed on tagged_at with the end exclusive, and limits', async function () {
      const ids = async (q: ListQuery) => (await store().tags.sessions(p, 'buyer', q)).map((s) => s.session_id);
      expect(await store().tags.sessions(p, 'buyer', { limit: 1 })).to.deep.equal([
        { session_id: 's2', tagged_at: T0 + 3000 },
      ]);
      expect(await ids({ limit: 10 })).to.deep.equal(['s2', 's3', 's3b', 's1']);
      expect(await ids({ window_start: T0 + 1000, window_end: T0 + 3000, limit: 10 })).to.deep.equal([
        's3',
        's3b',
        's1',
      ]);
      expect(await ids({ window_start: T0 + 2000, window_end: T0 + 2001, limit: 10 })).to.deep.equal(['s3', 's3b']);
      expect(await ids({ window_start: T0 + 1001, limit: 10 })).to.deep.equal(['s2', 's3', 's3b']);
      expect(await ids({ window_end: T0 + 1000, limit: 10 })).to.deep.equal([]);
      expect(await ids({ window_start: T0 + 1000, limit: 2 })).to.deep.equal(['s2', 's3']);
      expect(await ids({ limit: 0 })).to.deep.equal([]);
      expect(await store().tags.sessions(p, 'no-such-tag', { limit: 10 })).to.deep.equal([]);
    });

    it('is idempotent: the same fact written again changes nothing', async function () {
      const q = 'p-tags-idem';
      const { tags } = store();
      const fact = tagged(q, 'a', 'vip', 300, { source: 'r-vip' });
      await tags.add([fact, fact]);
      await tags.add([fact]);
      await tags.add([]);
      expect(await tags.ofSession(q, 'a')).to.deep.equal([{ tag: 'vip', last_seen: T0 + 300 }]);
      expect(await tags.sessions(q, 'vip', { limit: 10 })).to.deep.equal([{ session_id: 'a', tagged_at: T0 + 300 }]);
      expect(await tags.list(q)).to.deep.equal([{ tag: 'vip', last_seen: T0 + 300 }]);
    });

    it('keeps a tag while another source stands; tagged_at is the greatest over the standing sources', async function () {
      const q = 'p-tags-sources';
      const { tags } = store();
      await tags.add([
        tagged(q, 'a', 'buyer', 100),
        tagged(q, 'a', 'buyer', 300, { source: 'r-1', changed_at: T0 + 301 }),
      ]);
      expect(await tags.ofSession(q, 'a')).to.deep.equal([{ tag: 'buyer', last_seen: T0 + 300 }]);

      // The rule takes its tag back: the manual tag still stands, with its own tagged_at.
      await tags.add([removed(q, 'a', 'buyer', 400, { source: 'r-1' })]);
      expect(await tags.ofSession(q, 'a')).to.deep.equal([{ tag: 'buyer', last_seen: T0 + 100 }]);
      expect(await tags.list(q)).to.deep.equal([{ tag: 'buyer', last_seen: T0 + 100 }]);
      expect(await tags.sessions(q, 'buyer', { limit: 10 })).to.deep.equal([{ session_id: 'a', tagged_at: T0 + 100 }]);

      // The manual one goes too: the tag is gone everywhere.
      await tags.add([removed(q, 'a', 'buyer', 500)]);
      expect(await tags.ofSession(q, 'a')).to.deep.equal([]);
      expect(await tags.list(q)).to.deep.equal([]);
      expect(await tags.sessions(q, 'buyer', { limit: 10 })).to.deep.equal([]);

      // Added again later: it stands again with the new tagged_at.
      await tags.add([tagged(q, 'a', 'buyer', 600, { source: 'r-1' })]);
      expect(await tags.ofSession(q, 'a')).to.deep.equal([{ tag: 'buyer', last_seen: T0 + 600 }]);
      expect(await tags.sessions(q, 'buyer', { limit: 10 })).to.deep.equal([{ session_id: 'a', tagged_at: T0 + 600 }]);
    });

    it('a removal by a source that never tagged takes nothing back from the others', async function () {
      const q = 'p-tags-stray';
      const { tags } = store();
      await tags.add([
        tagged(q, 'a', 'vip', 100, { source: 'r-1' }),
        removed(q, 'a', 'vip', 200),
        removed(q, 'b', 'vip', 200),
      ]);
      expect(await tags.ofSession(q, 'a')).to.deep.equal([{ tag: 'vip', last_seen: T0 + 100 }]);
      expect(await tags.ofSession(q, 'b')).to.deep.equal([]);
      expect(await tags.sessions(q, 'vip', { limit: 10 })).to.deep.equal([{ session_id: 'a', tagged_at: T0 + 100 }]);
    });

    it('lets the greatest changed_at win whatever the arrival order, across and inside batches', async function () {
      const q = 'p-tags-order';
      const { tags } = store();
      // A removal at 20 arrives before an add at 10: the add is stale.
      await tags.add([removed(q, 'a', 'vip', 20)]);
      await tags.add([tagged(q, 'a', 'vip', 5, { changed_at: T0 + 10 })]);
      expect(await tags.ofSession(q, 'a')).to.deep.equal([]);
      // An add at 30 outranks the removal.
      await tags.add([tagged(q, 'a', 'vip', 7, { changed_at: T0 + 30 })]);
      expect(await tags.ofSession(q, 'a')).to.deep.equal([{ tag: 'vip', last_seen: T0 + 7 }]);
      // Inside one batch, out of order: the removal at 50 wins over the add at 40.
      await tags.add([removed(q, 'b', 'vip', 50), tagged(q, 'b', 'vip', 9, { changed_at: T0 + 40 })]);
      expect(await tags.ofSession(q, 'b')).to.deep.equal([]);
      // And the other way round: the add at 70 wins over the removal at 60.
      await tags.add([tagged(q, 'c', 'vip', 11, { changed_at: T0 + 70 }), removed(q, 'c', 'vip', 60)]);
      expect(await tags.ofSession(q, 'c')).to.deep.equal([{ tag: 'vip', last_seen: T0 + 11 }]);
      expect(await tags.sessions(q, 'vip', { limit: 10 })).to.deep.equal([
        { session_id: 'c', tagged_at: T0 + 11 },
        { session_id: 'a', tagged_at: T0 + 7 },
      ]);
    });

    it('takes tagged_at from the winning version, even when an older version had a later one', async function () {
      const q = 'p-tags-version';
      const { tags } = store();
      await tags.add([tagged(q, 'a', 'vip', 900, { changed_at: T0 + 1 })]);
      await tags.add([tagged(q, 'a', 'vip', 100, { changed_at: T0 + 2 })]);
      expect(await tags.ofSession(q, 'a')).to.deep.equal([{ tag: 'vip', last_seen: T0 + 100 }]);
      expect(await tags.list(q)).to.deep.equal([{ tag: 'vip', last_seen: T0 + 100 }]);
      expect(await tags.sessions(q, 'vip', { limit: 10 })).to.deep.equal([{ session_id: 'a', tagged_at: T0 + 100 }]);
      // The old version's tagged_at must not drag the session into a window it has left.
      expect(await tags.sessions(q, 'vip', { window_start: T0 + 500, limit: 10 })).to.deep.equal([]);
      // A removal whose own tagged_at lies inside the window hides the session from it.
      await tags.add([
        tagged(q, 'b', 'vip', 50, { changed_at: T0 + 1 }),
        removed(q, 'b', 'vip', 3, { tagged_at: T0 + 600 }),
      ]);
      expect(await tags.sessions(q, 'vip', { window_start: T0 + 500, limit: 10 })).to.deep.equal([]);
      expect(await tags.sessions(q, 'vip', { limit: 10 })).to.deep.equal([{ session_id: 'a', tagged_at: T0 + 100 }]);
    });

    it('on equal changed_at lets the later write win, across and inside batches', async function () {
      const q = 'p-tags-tie';
      const { tags } = store();
      await tags.add([tagged(q, 'a', 'vip', 10, { changed_at: T0 + 50 })]);
      await tags.add([removed(q, 'a', 'vip', 50)]);
      expect(await tags.ofSession(q, 'a')).to.deep.equal([]);
      await tags.add([tagged(q, 'a', 'vip', 20, { changed_at: T0 + 50 })]);
      expect(await tags.ofSession(q, 'a')).to.deep.equal([{ tag: 'vip', last_seen: T0 + 20 }]);
      await tags.add([tagged(q, 'b', 'vip', 10, { changed_at: T0 + 50 }), removed(q, 'b', 'vip', 50)]);
      expect(await tags.ofSession(q, 'b')).to.deep.equal([]);
      await tags.add([removed(q, 'c', 'vip', 50), tagged(q, 'c', 'vip', 30, { changed_at: T0 + 50 })]);
      expect(await tags.ofSession(q, 'c')).to.deep.equal([{ tag: 'vip', last_seen: T0 + 30 }]);
    });

    it('windows and limits on the greatest tagged_at over standing sources', async function () {
      const q = 'p-tags-window';
      const { tags } = store();
      await tags.add([
        tagged(q, 'a', 'vip', 100),
        tagged(q, 'a', 'vip', 900, { source: 'r-1' }),
        tagged(q, 'b', 'vip', 500, { source: 'r-1' }),
        tagged(q, 'b', 'vip', 200, { source: 'r-2' }),
        tagged(q, 'c', 'vip', 300),
        tagged(q, 'd', 'vip', 900, { source: 'r-2' }),
      ]);
      const ids = async (w: ListQuery) =>
        (await tags.sessions(q, 'vip', w)).map((s) => `${s.session_id}@${s.tagged_at - T0}`);
      expect(await ids({ limit: 10 })).to.deep.equal(['a@900', 'd@900', 'b@500', 'c@300']);
      // a's manual fact at 100 lies in [0, 400) but a's tagged_at is 900.
      expect(await ids({ window_start: T0, window_end: T0 + 400, limit: 10 })).to.deep.equal(['c@300']);
      expect(await ids({ window_start: T0 + 300, window_end: T0 + 900, limit: 10 })).to.deep.equal(['b@500', 'c@300']);
      expect(await ids({ window_start: T0 + 300, limit: 2 })).to.deep.equal(['a@900', 'd@900']);
      // Once r-1 takes its tags back, a falls to 100 and b to 200.
      await tags.add([
        removed(q, 'a', 'vip', 1000, { source: 'r-1' }),
        removed(q, 'b', 'vip', 1000, { source: 'r-1' }),
      ]);
      expect(await ids({ limit: 10 })).to.deep.equal(['d@900', 'c@300', 'b@200', 'a@100']);
      expect(await ids({ window_start: T0, window_end: T0 + 400, limit: 10 })).to.deep.equal([
        'c@300',
        'b@200',
        'a@100',
      ]);
      expect(await ids({ window_end: T0 + 300, limit: 1 })).to.deep.equal(['b@200']);
      expect(await tags.list(q)).to.deep.equal([{ tag: 'vip', last_seen: T0 + 900 }]);
      await tags.add([removed(q, 'd', 'vip', 1000, { source: 'r-2' })]);
      expect(await tags.list(q)).to.deep.equal([{ tag: 'vip', last_seen: T0 + 300 }]);
    });

    // The embedded store starts the next read of the same page where the last one ended; each
    // round below moves sessions across that point (later tags, taken back, an earlier tagged_at
    // winning, erasure), and every page must stay what the facts say.
    it('asks the same pages again and again while tags come, go and move back', async function () {
      const q = 'p-tags-again';
      const { tags, erasure } = store();
      const facts = new Map<string, SessionTag>();
      const write = async (batch: SessionTag[]) => {
        await tags.add(batch);
        for (const f of batch) {
          const key = `${f.session_id}\u0000${f.source}`;
          const prev = facts.get(key);
          if (!prev || f.changed_at >= prev.changed_at) facts.set(key, f);
        }
      };
      const expected = (w: ListQuery) => {
        const latest = new Map<string, number>();
        for (const f of facts.values())
          if (!f.removed) latest.set(f.session_id, Math.max(latest.get(f.session_id) ?? -Infinity, f.tagged_at));
        return [...latest]
          .filter(([, at]) => at >= (w.window_start ?? -Infinity) && at < (w.window_end ?? Infinity))
          .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
          .slice(0, w.limit)
          .map(([session_id, tagged_at]) => ({ session_id, tagged_at }));
      };
      const pages: ListQuery[] = [
        { limit: 5 },
        { limit: 1 },
        { window_start: T0 + 100, window_end: T0 + 4000, limit: 4 },
      ];
      const again = async () => {
        for (const w of pages) expect(await tags.sessions(q, 'vip', w), JSON.stringify(w)).to.deep.equal(expected(w));
      };
      let clock = 10;
      await write(
        Array.from({ length: 30 }, (_, k) => tagged(q, `t-${k}`, 'vip', 100 * k, { changed_at: T0 + clock })),
      );
      await again();
      for (let round = 0; round < 5; round++) {
        clock += 10;
        const at = T0 + clock;
        await write([
          // Later tags past every cut, one past a window's end.
          tagged(q, `t-${round}`, 'vip', 2900 + 40 * round, { source: 'r-late', changed_at: at }),
          tagged(q, `t-${10 + round}`, 'vip', 4000 + round, { source: 'r-late', changed_at: at }),
          // The newest tag taken back, and an older version with an earlier tagged_at winning.
          removed(q, `t-${29 - round}`, 'vip', clock),
          tagged(q, `t-${20 + round}`, 'vip', 50 + round, { changed_at: at }),
        ]);
        await again();
      }
      // The newest sessions erased: each page now holds fewer tags past its cut than it shows.
      for (const w of expected({ limit: 6 })) {
        await erasure.eraseVisitor(q, { session_id: w.session_id });
        for (const [key, f] of facts) if (f.session_id === w.session_id) facts.delete(key);
      }
      await again();
    });

    it("never shows project B's tags to project A, even on equal session ids", async function () {
      const { tags } = store();
      await tags.add([
        tagged('iso-tag-a', 'S', 'shared', 10),
        tagged('iso-tag-b', 'S', 'shared', 20),
        tagged('iso-tag-b', 'S', 'only-b', 30),
      ]);
      // B's removal of the shared tag leaves A's alone.
      await tags.add([removed('iso-tag-b', 'S', 'shared', 40)]);
      expect(await tags.list('iso-tag-a')).to.deep.equal([{ tag: 'shared', last_seen: T0 + 10 }]);
      expect(await tags.ofSession('iso-tag-a', 'S')).to.deep.equal([{ tag: 'shared', last_seen: T0 + 10 }]);
      expect(await tags.sessions('iso-tag-a', 'shared', { limit: 10 })).to.deep.equal([
        { session_id: 'S', tagged_at: T0 + 10 },
      ]);
      expect(await tags.sessions('iso-tag-a', 'only-b', { limit: 10 })).to.deep.equal([]);
      expect(await tags.ofSession('iso-tag-b', 'S')).to.deep.equal([{ tag: 'only-b', last_seen: T0 + 30 }]);
    });

    it('stores hostile values verbatim', async function () {
      await store().tags.add([tagged(INJECTION, INJECTION, INJECTION, 1, { source: INJECTION })]);
      expect(await store().tags.sessions(INJECTION, INJECTION, { limit: 10 })).to.deep.equal([
        { session_id: INJECTION, tagged_at: T0 + 1 },
      ]);
      expect(await store().tags.list(INJECTION)).to.deep.equal([{ tag: INJECTION, last_seen: T0 + 1 }]);
      await store().tags.add([removed(INJECTION, INJECTION, INJECTION, 2, { source: INJECTION })]);
      expect(await store().tags.ofSession(INJECTION, INJECTION)).to.deep.equal([]);
    });
  });
}
