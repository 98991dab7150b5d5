// Per-project retention (issue 17) on every backend: the settings round-trip, and expire()
// deletes a project's old events and sessions (with their tags and verdicts) while its recent
// rows, a project without retention and another project are untouched.
import { expect } from 'chai';
import type { Store } from '../src/index.js';
import { backends, migratedStore } from './store-backends.js';
import { T0, classification, enriched, project, raw, session, tagFact } from './store-fixtures.js';

const DAY = 86_400_000;
const CUT = T0 + 10 * DAY;

/** In each project: an old and a recent event, and an old and a recent session with a tag and a verdict. */
async function seed(store: Store, projectId: string): Promise<void> {
  const events = [
    { id: 'old', at: CUT - 1 },
    { id: 'new', at: CUT },
  ];
  await store.events.insertEvents(
    events.map(({ id, at }) => ({
      raw: raw({ event_id: `${projectId}-${id}`, project_id: projectId, timestamp: at }),
      enriched: enriched({
        event_id: `${projectId}-${id}`,
        project_id: projectId,
        timestamp: at,
        session_id: `s-${id}`,
      }),
    })),
  );
  await store.sessions.upsert(
    events.map(({ id, at }) =>
      session({
        session_id: `s-${id}`,
        project_id: projectId,
        first_event_at: at - 1000,
        last_event_at: at,
        updated_at: at,
      }),
    ),
  );
  await store.tags.add(
    events.map(({ id, at }) => tagFact({ project_id: projectId, session_id: `s-${id}`, tag: 'buyer', tagged_at: at })),
  );
  await store.classifications.put(
    events.map(({ id, at }) => classification({ project_id: projectId, session_id: `s-${id}`, classified_at: at })),
  );
}

async function remaining(store: Store, projectId: string) {
  const window = { limit: 100 };
  return {
    raw: (await store.events.listRaw(projectId, window)).map((e) => e.event_id),
    enriched: (await store.events.listEnriched(projectId, window)).map((e) => e.event_id),
    sessions: (await store.sessions.list(projectId, window)).map((s) => s.session_id).sort(),
    tagged: (await store.tags.sessions(projectId, 'buyer', window)).map((s) => s.session_id).sort(),
    classified: (await store.classifications.getMany(projectId, ['s-new', 's-old'])).map((c) => c.session_id),
    sessionEvents: (await store.events.sessionEvents(projectId, 's-old')).length,
  };
}

const all = (p: string) => ({
  raw: [`${p}-old`, `${p}-new`],
  enriched: [`${p}-old`, `${p}-new`],
  sessions: ['s-new', 's-old'],
  tagged: ['s-new', 's-old'],
  classified: ['s-new', 's-old'],
  sessionEvents: 1,
});

for (const backend of backends) {
  describe(`Store retention: ${backend.name}`, function () {
    this.timeout(60_000);
    let store: Store;

    migratedStore(backend, (s) => (store = s));

    before(async function () {
      await store.projects.create(project({ project_id: 'p-keep', origin: 'https://keep.example' }));
      await store.projects.create(project({ project_id: 'p-expire', origin: 'https://expire.example' }));
      for (const p of ['p-expire', 'p-keep', 'p-other']) await seed(store, p);
    });

    it('stores retention days and IP policy, a field left out kept, null by default', async function () {
      expect(await store.projects.get('p-keep')).to.include({ retention_days: null, ip_policy: null });
      const updated = await store.projects.updateSettings('p-expire', { retention_days: 30 });
      expect(updated).to.include({ project_id: 'p-expire', retention_days: 30, ip_policy: null });
      expect(await store.projects.updateSettings('p-expire', { ip_policy: 'hash' })).to.include({
        retention_days: 30,
        ip_policy: 'hash',
      });
      expect(await store.projects.find('https://expire.example', 'acme/web')).to.include({
        retention_days: 30,
        ip_policy: 'hash',
        verified: false,
      });
      await store.projects.setVerified('p-expire', true);
      expect(await store.projects.get('p-expire'), 'setVerified keeps the settings').to.include({
        retention_days: 30,
        ip_policy: 'hash',
        verified: true,
      });
      expect(await store.projects.updateSettings('p-404', { retention_days: 1 })).to.equal(null);
      expect((await store.projects.listWithRetention()).map((p) => p.project_id)).to.deep.equal(['p-expire']);
    });

    it('expire() deletes what is older than the cut in that project only', async function () {
      await store.expiry.expire('p-expire', CUT);
      expect(await remaining(store, 'p-expire')).to.deep.equal({
        raw: ['p-expire-new'],
        enriched: ['p-expire-new'],
        sessions: ['s-new'],
        tagged: ['s-new'],
        classified: ['s-new'],
        sessionEvents: 0,
      });
      expect(await remaining(store, 'p-keep'), 'a project without retention').to.deep.equal(all('p-keep'));
      expect(await remaining(store, 'p-other'), 'another project').to.deep.equal(all('p-other'));
      expect(await store.events.countRaw('p-expire')).to.equal(1);
      expect(await store.sessions.count('p-expire')).to.equal(1);
    });

    it('is idempotent, and a null retention clears it from the pass', async function () {
      await store.expiry.expire('p-expire', CUT);
      expect(await store.events.countEnriched('p-expire')).to.equal(1);
      await store.projects.updateSettings('p-expire', { retention_days: null });
      expect(await store.projects.listWithRetention()).to.deep.equal([]);
      expect(await store.projects.get('p-expire')).to.include({ retention_days: null, ip_policy: 'hash' });
    });
  });
}
