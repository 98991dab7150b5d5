// The page of sessions by last activity (GET /v1/sessions, store method sessions.list) on both
// engines. ClickHouse reads it from projections that hold every version of a session not merged
// yet, a slice of hours at a time (issue 15, target 3); the answer must stay what FINAL gives: each
// session once with its latest version, windowed on that version's last_event_at, newest first,
// ties by session_id. Checked against a model of that rule, through updates, deletions and merges.
import { expect } from 'chai';
import type { SessionListItem, SessionState } from '@spoor/schemas';
import type { ListQuery, Store } from '../src/index.js';
import { backends, migratedStore } from './store-backends.js';
import { T0, session } from './store-fixtures.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The page as the contract states it, from the latest version of each session. */
function expected(latest: Map<string, SessionState>, q: ListQuery): SessionListItem[] {
  const start = q.window_start ?? -Infinity;
  const end = q.window_end ?? Infinity;
  return [...latest.values()]
    .filter((s) => s.last_event_at >= start && s.last_event_at < end)
    .sort((a, b) => b.last_event_at - a.last_event_at || (a.session_id < b.session_id ? -1 : 1))
    .slice(0, q.limit ?? 100)
    .map((s) => ({
      session_id: s.session_id,
      first_event_at: s.first_event_at,
      last_event_at: s.last_event_at,
      event_count: s.event_count,
    }));
}

/** The next version of a session, as the sessionizer writes it: more events, later, later updated_at. */
function grow(s: SessionState, byMs: number, at: number): SessionState {
  const last = s.last_event_at + byMs;
  return {
    ...s,
    last_event_at: last,
    duration_ms: last - s.first_event_at,
    event_count: s.event_count + 1,
    updated_at: at,
  };
}

for (const backend of backends) {
  describe(`Store sessions page: ${backend.name}`, function () {
    this.timeout(120_000);
    let store: Store;
    const latest = new Map<string, Map<string, SessionState>>();

    async function upsert(list: SessionState[]) {
      await store.sessions.upsert(list);
      for (const s of list) {
        const of = latest.get(s.project_id) ?? new Map<string, SessionState>();
        const prev = of.get(s.session_id);
        if (!prev || s.updated_at >= prev.updated_at) of.set(s.session_id, s);
        latest.set(s.project_id, of);
      }
    }

    async function expectPage(p: string, q: ListQuery) {
      const got = await store.sessions.list(p, q);
      expect(got, JSON.stringify(q)).to.deep.equal(expected(latest.get(p) ?? new Map(), q));
      return got;
    }

    migratedStore(backend, (s) => (store = s));

    it('shows a session updated many times once, with its latest values, in and out of windows', async function () {
      const p = 'p-many';
      let s = session({ project_id: p, session_id: 'grows', first_event_at: T0, last_event_at: T0, event_count: 1 });
      await upsert([s, session({ project_id: p, session_id: 'still', last_event_at: T0 + 90 * 60_000 })]);
      // 40 versions, one insert each, 10 minutes apart: the last one 400 minutes after the first.
      for (let i = 1; i <= 40; i++) {
        s = grow(s, 10 * 60_000, T0 + i);
        await upsert([s]);
      }
      const page = await expectPage(p, { limit: 10 });
      expect(page.map((x) => x.session_id)).to.deep.equal(['grows', 'still']);
      expect(page[0]).to.include({ last_event_at: T0 + 400 * 60_000, event_count: 41 });
      // A window holding only older versions of `grows` does not show it; one holding its latest does.
      await expectPage(p, { window_start: T0, window_end: T0 + 200 * 60_000, limit: 10 });
      await expectPage(p, { window_end: T0 + 400 * 60_000, limit: 10 });
      await expectPage(p, { window_start: T0 + 400 * 60_000, limit: 10 });
      await expectPage(p, { window_start: T0 + 100 * 60_000, window_end: T0 + 401 * 60_000, limit: 1 });
    });

    it('answers as the latest versions say for random windows and limits, across days of sessions', async function () {
      const p = 'p-random';
      const next = random(15);
      const states: SessionState[] = [];
      // 400 sessions over 12 days, some bursts in one hour, many sharing a last_event_at.
      for (let k = 0; k < 400; k++) {
        const at = T0 + Math.floor(next() * 12 * DAY) - (k % 7 === 0 ? Math.floor(next() * 30) * 1000 : 0);
        const last = k % 5 === 0 ? T0 + 3 * DAY + 17 * 60_000 : at;
        states.push(
          session({
            project_id: p,
            session_id: `r-${String(k).padStart(3, '0')}`,
            first_event_at: last - 60_000,
            last_event_at: last,
            updated_at: 1,
          }),
        );
      }
      await upsert(states);
      // Later versions of a third of them in batches, some moved by minutes, some by days.
      for (let round = 2; round <= 4; round++) {
        const batch = states
          .filter((_, k) => (k + round) % 3 === 0)
          .map((s) =>
            grow(latest.get(p)!.get(s.session_id)!, Math.floor(next() * (round === 3 ? 2 * DAY : 40 * 60_000)), round),
          );
        await upsert(batch);
      }
      // An older version arriving last (a replay: earlier updated_at, no later last_event_at) is ignored.
      await upsert([{ ...states[3]!, updated_at: 0 }]);
      const cases: ListQuery[] = [{ limit: 1000 }, { limit: 1 }, { limit: 37 }, { limit: 400 }, { limit: 399 }];
      for (let i = 0; i < 25; i++) {
        const a = T0 - DAY + Math.floor(next() * 16 * DAY);
        const b = a + Math.floor(next() * 6 * DAY);
        const limit = 1 + Math.floor(next() * 150);
        cases.push({ window_start: a, window_end: b, limit }, { window_start: a, limit }, { window_end: b, limit });
      }
      cases.push({ window_start: T0 + 3 * DAY + 17 * 60_000, window_end: T0 + 3 * DAY + 17 * 60_000 + 1, limit: 1000 });
      cases.push({ window_start: T0 + 5 * DAY, window_end: T0 + 5 * DAY, limit: 10 });
      for (const q of cases) await expectPage(p, q);
    });

    it('windows exactly around the epoch and before it', async function () {
      const p = 'p-epoch';
      const list = [-5, -2, -1, 0, 1, 2, 5].flatMap((h) => [
        session({
          project_id: p,
          session_id: `e${h}-a`,
          first_event_at: h * HOUR - 1000,
          last_event_at: h * HOUR - 1,
          updated_at: 1,
        }),
        session({
          project_id: p,
          session_id: `e${h}-b`,
          first_event_at: h * HOUR - 1000,
          last_event_at: h * HOUR,
          updated_at: 1,
        }),
        session({
          project_id: p,
          session_id: `e${h}-c`,
          first_event_at: h * HOUR - 1000,
          last_event_at: h * HOUR + 1,
          updated_at: 1,
        }),
      ]);
      await upsert(list);
      for (const limit of [1, 2, 5, 21]) {
        await expectPage(p, { limit });
        for (const [a, b] of [
          [-HOUR, HOUR],
          [-HOUR + 1, 1],
          [-5 * HOUR, 0],
          [0, 2 * HOUR + 1],
          [-2 * HOUR - 1, -HOUR],
        ] as const) {
          await expectPage(p, { window_start: a, window_end: b, limit });
        }
      }
    });

    it('keeps deleted sessions out: project deletion, visitor erasure, retention', async function () {
      const sessions = (p: string) =>
        Array.from({ length: 30 }, (_, k) =>
          session({
            project_id: p,
            session_id: `d-${k}`,
            first_event_at: T0 + k * HOUR,
            last_event_at: T0 + k * HOUR + 1000,
            updated_at: 1,
          }),
        );
      for (const p of ['p-del', 'p-erase', 'p-keep']) {
        await upsert(sessions(p));
        await upsert(sessions(p).map((s) => grow(s, 10 * 60_000, 2)));
      }
      await store.erasure.deleteProject('p-del', 'no-job');
      latest.delete('p-del');
      await expectPage('p-del', { limit: 100 });
      expect(await store.sessions.list('p-del', { limit: 100 })).to.deep.equal([]);

      await store.erasure.eraseVisitor('p-erase', { session_id: 'd-29' });
      latest.get('p-erase')!.delete('d-29');
      await expectPage('p-erase', { limit: 3 });

      await store.expiry.expire('p-erase', T0 + 10 * HOUR);
      for (const k of Array.from({ length: 10 }, (_, i) => `d-${i}`)) latest.get('p-erase')!.delete(k);
      await expectPage('p-erase', { limit: 100 });
      await expectPage('p-erase', { window_end: T0 + 12 * HOUR, limit: 100 });
      // Written again after its deletion, a session is back with its new values only.
      await upsert([grow(latest.get('p-keep')!.get('d-0')!, 1, 3)].map((s) => ({ ...s, project_id: 'p-erase' })));
      await expectPage('p-erase', { limit: 100 });
      await expectPage('p-keep', { limit: 100 });
      await expectPage('p-keep', { window_start: T0 + 3 * HOUR, window_end: T0 + 7 * HOUR, limit: 2 });
    });

    // Both stores start the next read of the same page where the last one ended; each
    // change below moves sessions across that point, and every page must still be exact.
    it('asks the same pages again and again while sessions grow, leave the window and are deleted', async function () {
      const p = 'p-again';
      const next = random(16);
      await upsert(
        Array.from({ length: 60 }, (_, k) =>
          session({
            project_id: p,
            session_id: `a-${String(k).padStart(2, '0')}`,
            first_event_at: T0 + k * 60_000,
            last_event_at: T0 + k * 60_000 + (k % 4) * 1000,
            updated_at: 1,
          }),
        ),
      );
      const pages: ListQuery[] = [
        { limit: 10 },
        { limit: 1 },
        { window_end: T0 + 50 * 60_000, limit: 10 },
        { window_start: T0 + 20 * 60_000, window_end: T0 + 55 * 60_000, limit: 7 },
      ];
      const again = async () => {
        for (const q of pages) await expectPage(p, q);
      };
      await again();
      let at = 2;
      for (let round = 0; round < 6; round++) {
        // Older sessions come back to life: past every page's cut, some past a window's end.
        const ids = [...latest.get(p)!.keys()].filter(() => next() < 0.2);
        await upsert(ids.map((id) => grow(latest.get(p)!.get(id)!, Math.floor(next() * 30) * 60_000, at++)));
        await again();
      }
      // The newest sessions deleted: each page now holds fewer sessions past its cut than it shows.
      const newest = [...latest.get(p)!.values()].sort((a, b) => b.last_event_at - a.last_event_at).slice(0, 12);
      for (const s of newest) {
        await store.erasure.eraseVisitor(p, { session_id: s.session_id });
        latest.get(p)!.delete(s.session_id);
      }
      await again();
      await store.expiry.expire(p, T0 + 40 * 60_000);
      for (const [id, s] of latest.get(p)!) if (s.last_event_at < T0 + 40 * 60_000) latest.get(p)!.delete(id);
      await again();
      // Fewer sessions left than a page shows, then new ones past them all.
      await upsert(
        Array.from({ length: 15 }, (_, k) =>
          session({
            project_id: p,
            session_id: `b-${k}`,
            first_event_at: T0 + 200 * 60_000,
            last_event_at: T0 + 200 * 60_000 + k,
            updated_at: at,
          }),
        ),
      );
      await again();
    });
  });
}
