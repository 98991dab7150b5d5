// Issue 17, visitor erasure, on every backend: two visitors in two projects with the same ids;
// one visitor of one project is erased by each selector, and the store's reads show their rows
// gone while the other visitor, and the other project's identical rows, stay whole.
import { expect } from 'chai';
import { visitorIdOf, type Store, type VisitorSelector } from '../src/index.js';
import { backends, type Opened } from './store-backends.js';
import { T0, classification, enriched, raw, session, tagFact } from './store-fixtures.js';

const A = { ip: '203.0.113.7', user_agent: 'UA-A' };
const B = { ip: '198.51.100.9', user_agent: 'UA-B' };
/** Visitor A: s-a1 (the logger's id: on raw rows too) and s-a2 (derived: raw rows carry none). B: s-b1. */
const EVENTS = [
  { id: 'a1', who: A, session: 's-a1', client: true, action: 'click', at: T0 + 1000 },
  { id: 'a2', who: A, session: 's-a1', client: true, action: 'buy', at: T0 + 2000 },
  { id: 'a3', who: A, session: 's-a2', client: false, action: 'view', at: T0 + 9000 },
  { id: 'b1', who: B, session: 's-b1', client: false, action: 'click', at: T0 + 500 },
  { id: 'b2', who: B, session: 's-b1', client: false, action: 'buy', at: T0 + 100 },
];

async function seed(s: Store, pid: string): Promise<void> {
  // As the enricher writes them: DuckDB keeps both halves in one row, whose session id is the enriched one.
  await s.events.insertEvents(
    EVENTS.map((e) => ({
      raw: raw({
        event_id: e.id,
        project_id: pid,
        ...e.who,
        action: e.action,
        timestamp: e.at,
        session_id: e.client ? e.session : null,
      }),
      enriched: enriched({
        event_id: e.id,
        project_id: pid,
        ...e.who,
        action: e.action,
        timestamp: e.at,
        session_id: e.session,
      }),
    })),
  );
  await s.events.touchActions(EVENTS.map((e) => ({ project_id: pid, action: e.action, last_seen: e.at })));
  for (const sid of ['s-a1', 's-a2', 's-b1']) {
    await s.sessions.upsert([session({ session_id: sid, project_id: pid })]);
    await s.tags.add([tagFact({ project_id: pid, session_id: sid, tag: `tag-${sid}` })]);
    await s.classifications.put([classification({ session_id: sid, project_id: pid })]);
  }
}

/** What the store still shows of the project, by session and by event. */
async function shown(s: Store, pid: string) {
  const all = { limit: 1000 };
  return {
    raw: (await s.events.listRaw(pid, all)).map((e) => e.event_id).sort(),
    enriched: (await s.events.listEnriched(pid, all)).map((e) => e.event_id).sort(),
    sessions: (await s.sessions.list(pid, all)).map((x) => x.session_id).sort(),
    sessionEvents: (await s.events.eventsOfSessions(pid, ['s-a1', 's-a2', 's-b1'])).map((e) => e.event_id).sort(),
    tags: (await s.tags.list(pid)).map((t) => t.tag).sort(),
    classified: (await s.classifications.getMany(pid, ['s-a1', 's-a2', 's-b1'])).map((c) => c.session_id),
    actions: Object.fromEntries((await s.events.listActions(pid)).map((a) => [a.action, a.last_seen])),
  };
}

const WHOLE = {
  raw: ['a1', 'a2', 'a3', 'b1', 'b2'],
  enriched: ['a1', 'a2', 'a3', 'b1', 'b2'],
  sessions: ['s-a1', 's-a2', 's-b1'],
  sessionEvents: ['a1', 'a2', 'a3', 'b1', 'b2'],
  tags: ['tag-s-a1', 'tag-s-a2', 'tag-s-b1'],
  classified: ['s-a1', 's-a2', 's-b1'],
  actions: { click: T0 + 1000, buy: T0 + 2000, view: T0 + 9000 },
};
/** Visitor A erased: B alone, the action times B's. */
const ONLY_B = {
  raw: ['b1', 'b2'],
  enriched: ['b1', 'b2'],
  sessions: ['s-b1'],
  sessionEvents: ['b1', 'b2'],
  tags: ['tag-s-b1'],
  classified: ['s-b1'],
  actions: { click: T0 + 500, buy: T0 + 100 },
};

const CASES: Array<{ name: string; selector: VisitorSelector; sessions: string[]; events: number; after: unknown }> = [
  { name: 'an IP as stored', selector: { ips: [A.ip] }, sessions: ['s-a1', 's-a2'], events: 3, after: ONLY_B },
  {
    name: 'a visitor id (IP as stored and user agent)',
    selector: { visitor_id: visitorIdOf(A.ip, A.user_agent) },
    sessions: ['s-a1', 's-a2'],
    events: 3,
    after: ONLY_B,
  },
  {
    name: 'a session id',
    selector: { session_id: 's-a1' },
    sessions: ['s-a1'],
    events: 2,
    after: {
      raw: ['a3', 'b1', 'b2'],
      enriched: ['a3', 'b1', 'b2'],
      sessions: ['s-a2', 's-b1'],
      sessionEvents: ['a3', 'b1', 'b2'],
      tags: ['tag-s-a2', 'tag-s-b1'],
      classified: ['s-a2', 's-b1'],
      actions: { click: T0 + 500, buy: T0 + 100, view: T0 + 9000 },
    },
  },
];

for (const backend of backends) {
  describe(`Store visitor erasure: ${backend.name}`, function () {
    this.timeout(60_000);
    let opened: Opened | undefined;

    beforeEach(async function () {
      opened = await backend.open(this);
      await opened.store.migrate();
      await seed(opened.store, 'p-erase');
      await seed(opened.store, 'p-same-ids');
    });

    afterEach(async () => {
      await opened?.cleanup();
      opened = undefined;
    });

    for (const c of CASES) {
      it(`erases by ${c.name}: that person's rows go, the other visitor and the other project stay`, async () => {
        const s = opened!.store;
        expect(await shown(s, 'p-erase')).to.deep.equal(WHOLE);
        const result = await s.erasure.eraseVisitor('p-erase', c.selector);
        expect(result.session_ids).to.deep.equal(c.sessions);
        expect(result.events).to.equal(c.events);
        expect(result.window?.start).to.equal(T0 + 1000);
        expect(await shown(s, 'p-erase')).to.deep.equal(c.after);
        expect(await shown(s, 'p-same-ids')).to.deep.equal(WHOLE);
        // Idempotent: a job taken over finds nothing more.
        const again = await s.erasure.eraseVisitor('p-erase', c.selector);
        expect(again.events).to.equal(0);
        expect(again.window).to.equal(null);
        expect(await shown(s, 'p-erase')).to.deep.equal(c.after);
      });
    }

    it('erases nobody when the selector matches nothing', async () => {
      const s = opened!.store;
      const result = await s.erasure.eraseVisitor('p-erase', { ips: ['192.0.2.1'] });
      expect(result).to.deep.equal({ session_ids: [], events: 0, window: null });
      expect(await shown(s, 'p-erase')).to.deep.equal(WHOLE);
    });

    it('counts no session for a session id that never existed, nor for one already erased (issue 43)', async () => {
      const s = opened!.store;
      const none = await s.erasure.eraseVisitor('p-erase', { session_id: 'never-there' });
      expect(none).to.deep.equal({ session_ids: [], events: 0, window: null });
      expect(await shown(s, 'p-erase')).to.deep.equal(WHOLE);
      expect((await s.erasure.eraseVisitor('p-erase', { session_id: 's-a1' })).session_ids).to.deep.equal(['s-a1']);
      expect((await s.erasure.eraseVisitor('p-erase', { session_id: 's-a1' })).session_ids).to.deep.equal([]);
    });
  });
}
