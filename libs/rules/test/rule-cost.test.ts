import { expect } from 'chai';
import jsonLogic from 'json-logic-js';
import { RULE_EVALUATION_BUDGET, ruleCostIssue, ruleLogicIssues } from '@spoor/schemas';
import { applyWithin, compileRules, EvaluationBudgetError, testRules, type Meter } from '../src/index.js';

// Issue 13: rules whose evaluation would hold the event loop are refused when saved, and
// evaluation is metered so that one saved before the check cannot freeze a consumer.

/** map over `width` literal items, nested `levels` deep: width^levels steps. */
function nestedMap(width: number, levels: number): unknown {
  const items = Array.from({ length: width }, (_, i) => i);
  let logic: unknown = { '+': [1, 1] };
  for (let i = 0; i < levels; i++) logic = { map: [items, logic] };
  return logic;
}
/** reduce over `rounds` items whose body merges the accumulator with itself: 2^rounds items. */
const doubling = (rounds: number) => ({
  reduce: [
    Array.from({ length: rounds }, (_, i) => i),
    { merge: [{ var: 'accumulator' }, { var: 'accumulator' }] },
    [1],
  ],
});

describe('rule cost bound (save time)', () => {
  const refused: Array<[string, unknown, Array<string | number>]> = [
    // The first node whose bound passes 20,000 steps: two levels from the inside at 300 items, three at 18.
    ['map over 300 items six levels deep', nestedMap(300, 6), ['map', 1, 'map', 1, 'map', 1, 'map', 1, 'map']],
    ['map over 18 items six levels deep', nestedMap(18, 6), ['map', 1, 'map', 1, 'map', 1, 'map']],
    ['a reduce that doubles an array 40 times', doubling(40), ['reduce', 1, 'merge']],
    [
      'a merge of a merge of data lists, nested',
      { map: [{ var: 'a' }, { map: [{ var: 'b' }, { map: [{ var: 'c' }, 1] }] }] },
      ['map'],
    ],
  ];
  for (const [label, logic, path] of refused) {
    it(`refuses ${label}, naming the node`, () => {
      const issues = ruleLogicIssues(logic);
      expect(issues).to.have.length(1);
      expect(issues[0]!.path).to.deep.equal(path);
      expect(issues[0]!.msg).to.match(/more than/);
    });
  }

  const accepted: Array<[string, unknown]> = [
    ['a comparison', { '>': [{ var: 'duration_ms' }, 60000] }],
    [
      'an and of several checks',
      {
        and: [
          { '==': [{ var: 'geo.country' }, 'FR'] },
          { in: ['checkout', { var: 'actions_list' }] },
          { '>=': [{ var: 'event_count' }, 5] },
        ],
      },
    ],
    ['some over a data list', { some: [{ var: 'events' }, { '==': [{ var: 'action' }, 'buy'] }] }],
    ['a sum with reduce', { reduce: [{ var: 'items' }, { '+': [{ var: 'current' }, { var: 'accumulator' }] }, 0] }],
    ['a map over 10 items three levels deep', nestedMap(10, 3)],
    [
      'a reduce that appends one item per round',
      { reduce: [[1, 2, 3, 4], { merge: [{ var: 'accumulator' }, [{ var: 'current' }]] }, []] },
    ],
  ];
  for (const [label, logic] of accepted) {
    it(`accepts ${label}`, () => expect(ruleCostIssue(logic)).to.equal(null));
  }
});

describe('metered evaluation (run time)', () => {
  it('stops the 18 × 6 nested map after the step budget, not after 34 million steps', () => {
    const meter: Meter = { steps: Infinity, spent: 0 };
    expect(() => applyWithin(nestedMap(18, 6), {}, meter)).to.throw(EvaluationBudgetError);
    expect(meter.spent).to.be.at.most(RULE_EVALUATION_BUDGET.steps + 1);
  });

  it('stops the doubling reduce before its list passes the item budget: its copies count as steps', () => {
    // Issue 42: merge pays for the items it copies, so the steps run out before 10,000 items.
    expect(() => applyWithin(doubling(40), {})).to.throw(EvaluationBudgetError, /steps/);
  });

  it('stops a merge that builds a list past the item budget', () => {
    const data = { xs: Array.from({ length: 10_001 }, (_, i) => i) };
    expect(() => applyWithin({ merge: [{ var: 'xs' }] }, data)).to.throw(EvaluationBudgetError, /items/);
  });

  it('gives the same answer as json-logic-js within the budget', () => {
    const logic = { map: [[1, 2, 3], { '*': [{ var: '' }, 2] }] };
    expect(applyWithin(logic, {})).to.deep.equal(jsonLogic.apply(logic as never, {}));
  });

  it('counts a rule saved before the bound existed as not matched, and classifies with the others', () => {
    const heavyBody = { '-': [{ '+': Array.from({ length: 150 }, () => 1) }, 150] }; // 0: never true, so some() walks every item
    const set = compileRules([
      {
        rule_id: 'heavy',
        kind: 'classification',
        logic: { some: [{ var: 'xs' }, heavyBody] },
        tags: ['h'],
        label: null,
        attribute: null,
        value: null,
        enabled: true,
      },
      {
        rule_id: 'pathological',
        kind: 'classification',
        logic: nestedMap(300, 6),
        tags: ['p'],
        label: null,
        attribute: null,
        value: null,
        enabled: true,
      },
      {
        rule_id: 'light',
        kind: 'classification',
        logic: { '>': [{ var: 'n' }, 1] },
        tags: ['l'],
        label: null,
        attribute: null,
        value: null,
        enabled: true,
      },
    ]);
    // Passes the save-time bound (100 assumed per data list) but the data holds 1,000.
    const verdict = set.classify({ n: 2, xs: Array.from({ length: 1000 }, (_, i) => i) });
    expect(verdict.rule_ids).to.deep.equal(['light']);
    expect(set.overBudget.get('heavy')).to.equal(1);
    // One that fails today's save-time bound is left out when compiled, never evaluated.
    expect(set.invalid).to.deep.equal(['pathological']);
  });

  it('refuses a rules test whose total cost passes its budget', async () => {
    const rule = {
      rule_id: 'r',
      kind: 'classification' as const,
      logic: { some: [{ var: 'xs' }, { '==': [{ var: '' }, -1] }] },
      tags: [],
      enabled: true,
    };
    const sessions = Array.from({ length: 200 }, () => ({ xs: Array.from({ length: 5000 }, (_, i) => i) }));
    const refused = await testRules(sessions, [rule as never]).then(
      () => null,
      (err: Error) => err,
    );
    expect(refused?.message).to.match(/evaluation steps|evaluation budget/);
  });
});
