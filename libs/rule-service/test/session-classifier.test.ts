import { expect } from 'chai';
import { join } from 'node:path';
import { openBus, type Bus, type DeliveredMessage } from '@spoor/bus';
import { MemoryKv } from '@spoor/kv';
import { createLogger } from '@spoor/service-log';
import type { RuleMatch, RuleRecord, SessionSummary } from '@spoor/schemas';
import { openStore, type Store } from '@spoor/store';
import { makeTempDir } from '@spoor/testkit';
import { RulesCache } from '@spoor/rules';
import { SessionClassifier } from '../src/index.js';

const P = 'project-1';

function summary(sessionId: string, eventCount: number, lastEventAt: number): SessionSummary {
  return {
    session_id: sessionId,
    project_id: P,
    first_event_at: lastEventAt - 10,
    last_event_at: lastEventAt,
    duration_ms: 10,
    event_count: eventCount,
    actions: {},
    entry_url: null,
    exit_url: null,
    page_count: 0,
    referrer: null,
    utm: { source: null, medium: null, campaign: null, term: null, content: null },
    browser: { name: null, version: null },
    os: { name: null, version: null },
    device: { type: null, vendor: null, model: null },
    geo: { country: 'DE', region: null, city: null, latitude: null, longitude: null },
    attributes: {},
    tags: [],
    classification: null,
    updated_at: lastEventAt,
  };
}

function rule(ruleId: string, logic: unknown, tags: string[], version = 1, enabled = true): RuleRecord {
  return {
    project_id: P,
    rule_id: ruleId,
    version,
    kind: 'classification',
    logic,
    tags,
    label: `${ruleId} label`,
    attribute: null,
    value: null,
    description: null,
    enabled,
    created_at: 1,
    updated_at: version,
    updated_by: 'a',
  };
}

/** The classifier against the real embedded bus, DuckDB and the memory KV. */
describe('SessionClassifier', function () {
  this.timeout(30_000);
  let store: Store;
  let bus: Bus;
  let kv: MemoryKv;
  let classifier: SessionClassifier;
  let now = 1_000;
  const announced: RuleMatch[] = [];

  before(async () => {
    const dir = await makeTempDir('classifier');
    store = await openStore({ kind: 'duckdb', path: join(dir, 'db.duckdb') });
    await store.migrate();
    bus = await openBus({ kind: 'embedded', dir: join(dir, 'bus'), logger: createLogger('test', 'error') });
    kv = new MemoryKv();
    classifier = new SessionClassifier({ store, kv, clock: () => now, matches: { bus, topic: 'matches' } });
    await bus.subscribe({
      topic: 'matches',
      group: 'test',
      handler: async (batch: DeliveredMessage[]) =>
        void announced.push(...batch.map((m) => JSON.parse(m.value) as RuleMatch)),
    });
  });
  after(async () => {
    await bus?.close();
    await store?.close();
  });

  const saveRule = async (r: RuleRecord) => {
    await store.rules.put(r);
    await RulesCache.changed(kv, P);
  };
  const waitAnnounced = async (n: number) => {
    for (let i = 0; i < 100 && announced.length < n; i++) await new Promise((r) => setTimeout(r, 20));
  };

  it('writes a verdict with its tags and announces the rules that newly match', async () => {
    await saveRule(rule('busy', { '>=': [{ var: 'event_count' }, 3] }, ['busy', 'active']));
    await saveRule(rule('german', { '==': [{ var: 'geo.country' }, 'DE'] }, []));
    const out = await classifier.classify(P, [summary('a', 5, 500), summary('b', 1, 600)], {
      force: false,
      announce: true,
    });
    expect(out.written).to.equal(2);
    expect(await store.classifications.get(P, 'a')).to.deep.include({
      rule_ids: ['busy', 'german'],
      labels: ['busy label', 'german label'],
      classified_at: 1000,
      session_last_event_at: 500,
    });
    expect(await store.tags.ofSession(P, 'a')).to.deep.equal([
      { tag: 'active', last_seen: 500 },
      { tag: 'busy', last_seen: 500 },
    ]);
    expect(await store.tags.ofSession(P, 'b')).to.deep.equal([]);
    await waitAnnounced(3);
    expect(announced.map((a) => `${a.session_id}:${a.rule_id}`).sort()).to.deep.equal([
      'a:busy',
      'a:german',
      'b:german',
    ]);
  });

  it('writes nothing and announces nothing when the verdict did not change', async () => {
    now = 2_000;
    const out = await classifier.classify(P, [summary('a', 6, 700)], { force: false, announce: true });
    expect(out.written).to.equal(0);
    expect((await store.classifications.get(P, 'a'))!.classified_at).to.equal(1000);
    await new Promise((r) => setTimeout(r, 100));
    expect(announced).to.have.length(3);
  });

  it('takes rule tags back when a changed rule stops matching, keeping hand-given tags', async () => {
    now = 3_000;
    await store.tags.add([
      {
        project_id: P,
        session_id: 'a',
        tag: 'busy',
        source: 'manual',
        tagged_at: 900,
        removed: false,
        changed_at: 900,
      },
    ]);
    await saveRule(rule('busy', { '>=': [{ var: 'event_count' }, 50] }, ['busy', 'active'], 2));
    const out = await classifier.classify(P, [summary('a', 6, 700)], { force: false, announce: true });
    expect(out.written).to.equal(1);
    expect((await store.classifications.get(P, 'a'))!.rule_ids).to.deep.equal(['german']);
    expect(await store.tags.ofSession(P, 'a')).to.deep.equal([{ tag: 'busy', last_seen: 900 }]);
    expect(await store.tags.sessions(P, 'active', { limit: 10 })).to.deep.equal([]);
  });

  it('skips disabled rules and writes every verdict when forced', async () => {
    now = 4_000;
    await saveRule(rule('german', { '==': [{ var: 'geo.country' }, 'DE'] }, [], 2, false));
    const out = await classifier.classify(P, [summary('a', 6, 700), summary('c', 1, 800)], {
      force: true,
      announce: false,
    });
    expect(out.written).to.equal(2);
    expect((await store.classifications.get(P, 'a'))!.rule_ids).to.deep.equal([]);
    expect(await store.classifications.get(P, 'c')).to.deep.include({ rule_ids: [], classified_at: 4000 });
  });
});
