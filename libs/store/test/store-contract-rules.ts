// Contract cases for rules and session classifications; registered by store.contract.test.ts
// inside each backend's suite.
import { expect } from 'chai';
import type { Store } from '../src/index.js';
import { expectConflict, expectOneWinner } from './store-assertions.js';
import { INJECTION, T0, classification, rule } from './store-fixtures.js';

export function ruleCases(store: () => Store): void {
  describe('rules', function () {
    const p = 'p-rules';
    const buyer1 = rule({ rule_id: 'r-buyer' });
    const buyer2 = rule({
      rule_id: 'r-buyer',
      version: 2,
      tags: ['buyer', 'paying'],
      label: null,
      description: null,
      updated_by: 'acct-2',
    });
    const buyer3 = rule({ rule_id: 'r-buyer', version: 3, enabled: false });
    const plan = rule({
      rule_id: 'a-plan',
      kind: 'attribute',
      tags: [],
      label: null,
      attribute: 'plan',
      logic: { '==': [{ var: 'action' }, 'upgrade'] },
      value: { cat: ['plan-', { var: 'payload.plan' }, ' «ünïcødé» "q"'] },
    });
    const literal = rule({
      rule_id: 'z-literal',
      logic: true,
      value: 'constant',
      kind: 'attribute',
      attribute: 'flag',
      tags: [],
    });

    before(async function () {
      const { rules } = store();
      await rules.put(buyer1);
      await rules.put(plan);
      await rules.put(buyer2);
      await rules.put(literal);
      await rules.put(buyer3);
    });

    it('gets the latest version of a rule, every field round-tripped', async function () {
      const { rules } = store();
      expect(await rules.get(p, 'r-buyer')).to.deep.equal(buyer3);
      expect(await rules.get(p, 'a-plan')).to.deep.equal(plan);
      expect(await rules.get(p, 'z-literal')).to.deep.equal(literal);
      expect(await rules.get(p, 'r-none')).to.equal(null);
      expect(await rules.get('p-other', 'r-buyer')).to.equal(null);
    });

    it('lists the latest version of every rule, enabled or not, by rule_id', async function () {
      expect(await store().rules.list(p)).to.deep.equal([plan, buyer3, literal]);
      expect(await store().rules.list('p-none')).to.deep.equal([]);
    });

    it('lists every version of one rule, oldest first', async function () {
      expect(await store().rules.versions(p, 'r-buyer')).to.deep.equal([buyer1, buyer2, buyer3]);
      expect(await store().rules.versions(p, 'a-plan')).to.deep.equal([plan]);
      expect(await store().rules.versions(p, 'r-none')).to.deep.equal([]);
    });

    it('refuses a version that exists and keeps the stored one', async function () {
      const { rules } = store();
      await expectConflict(rules.put({ ...buyer2, tags: ['overwritten'], updated_by: 'acct-evil' }));
      await expectConflict(rules.put(buyer1));
      expect(await rules.versions(p, 'r-buyer')).to.deep.equal([buyer1, buyer2, buyer3]);
      // The same rule_id and version in another project is another rule.
      const elsewhere = { ...buyer1, project_id: 'p-rules-other' };
      await rules.put(elsewhere);
      expect(await rules.list('p-rules-other')).to.deep.equal([elsewhere]);
      expect(await rules.get(p, 'r-buyer')).to.deep.equal(buyer3);
    });

    it('lets exactly one of two concurrent saves of one version win', async function () {
      const { rules } = store();
      const racers = ['acct-a', 'acct-b'].map((who) =>
        rule({ project_id: 'p-rules-race', rule_id: 'r-race', updated_by: who }),
      );
      const winner = await expectOneWinner(racers.map((r) => () => rules.put(r)));
      expect(await rules.versions('p-rules-race', 'r-race')).to.deep.equal([racers[winner]]);
      // Identical content from two writers: still one winner.
      const same = rule({ project_id: 'p-rules-race', rule_id: 'r-same' });
      await expectOneWinner([() => rules.put(same), () => rules.put(same)]);
      expect(await rules.versions('p-rules-race', 'r-same')).to.deep.equal([same]);
    });

    it('stores hostile values verbatim', async function () {
      const r = rule({
        project_id: INJECTION,
        rule_id: INJECTION,
        tags: [INJECTION],
        label: INJECTION,
        description: INJECTION,
        logic: { [INJECTION]: [INJECTION] },
        updated_by: INJECTION,
      });
      await store().rules.put(r);
      expect(await store().rules.get(INJECTION, INJECTION)).to.deep.equal(r);
      expect(await store().rules.list(INJECTION)).to.deep.equal([r]);
    });
  });
}

export function classificationCases(store: () => Store): void {
  describe('session classifications', function () {
    const p = 'p-class';

    it('gets one, many (by session_id) and none; round-trips every field', async function () {
      const { classifications } = store();
      const a = classification({ session_id: 'c-a' });
      const b = classification({ session_id: 'c-b', rule_ids: [], labels: [], tags: [], classified_at: T0 + 5 });
      const c = classification({
        session_id: 'c-c',
        tags: [
          { rule_id: 'r-buyer', tag: 'buyer' },
          { rule_id: 'r-buyer', tag: 'paying' },
        ],
      });
      await classifications.put([c, a]);
      await classifications.put([b]);
      await classifications.put([]);
      expect(await classifications.get(p, 'c-a')).to.deep.equal(a);
      expect(await classifications.get(p, 'c-b')).to.deep.equal(b);
      expect(await classifications.get(p, 'c-none')).to.equal(null);
      expect(await classifications.getMany(p, ['c-c', 'c-none', 'c-a', 'c-b'])).to.deep.equal([a, b, c]);
      expect(await classifications.getMany(p, [])).to.deep.equal([]);
      const many = Array.from({ length: 1500 }, (_, i) => `c-missing-${i}`);
      expect(await classifications.getMany(p, [...many, 'c-b'])).to.deep.equal([b]);
    });

    it('keeps the newest verdict whatever the arrival order; a tie goes to the later write', async function () {
      const { classifications } = store();
      const q = 'p-class-order';
      const v = (at: number, rule: string) =>
        classification({
          project_id: q,
          session_id: 's',
          classified_at: T0 + at,
          rule_ids: [rule],
          labels: [rule],
          tags: [],
        });
      await classifications.put([v(20, 'second')]);
      await classifications.put([v(10, 'first')]);
      expect(await classifications.get(q, 's')).to.deep.equal(v(20, 'second'));
      await classifications.put([v(30, 'third')]);
      expect(await classifications.get(q, 's')).to.deep.equal(v(30, 'third'));
      await classifications.put([v(30, 'third-again')]);
      expect(await classifications.get(q, 's')).to.deep.equal(v(30, 'third-again'));
      await classifications.put([v(50, 'in-batch-newest'), v(40, 'in-batch-older'), v(50, 'in-batch-tie-later')]);
      expect(await classifications.getMany(q, ['s'])).to.deep.equal([v(50, 'in-batch-tie-later')]);
    });

    it("never shows project B's verdicts to project A", async function () {
      const { classifications } = store();
      const a = classification({ project_id: 'iso-class-a', session_id: 'S', labels: ['A'] });
      await classifications.put([
        a,
        classification({ project_id: 'iso-class-b', session_id: 'S', labels: ['B'] }),
        classification({ project_id: 'iso-class-b', session_id: 'only-b' }),
      ]);
      expect(await classifications.get('iso-class-a', 'S')).to.deep.equal(a);
      expect(await classifications.getMany('iso-class-a', ['S', 'only-b'])).to.deep.equal([a]);
    });

    it('stores hostile values verbatim', async function () {
      const c = classification({
        project_id: INJECTION,
        session_id: INJECTION,
        rule_ids: [INJECTION],
        labels: [INJECTION],
        tags: [{ rule_id: INJECTION, tag: INJECTION }],
      });
      await store().classifications.put([c]);
      expect(await store().classifications.getMany(INJECTION, [INJECTION])).to.deep.equal([c]);
    });
  });
}
