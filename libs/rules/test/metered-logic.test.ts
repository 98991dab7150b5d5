import { expect } from 'chai';
import jsonLogic from 'json-logic-js';
import { ruleLogicIssues } from '@spoor/schemas';
import {
  applyWithin,
  compileRules,
  EvaluationBudgetError,
  RuleTestBudgetError,
  testRules,
  type Meter,
} from '../src/index.js';
import { runSliced } from '../src/time-slices.js';
import { rule } from './fixtures.js';

// Issue 42, item 2: `in` over a list cost one step, so an `or` of 450 `in`s over 1,500-item
// lists passed the budget only after 2.3 s of event loop. Steps now count the work done.

const list = (n: number) => Array.from({ length: n }, (_, i) => i);
const DATA = {
  n: 5,
  s: 'hello world',
  xs: [1, 2, 3],
  words: ['a', 'bb', 'ccc'],
  nested: { deep: { x: 1 } },
  empty: [],
  nil: null,
  items: [{ qty: 2 }, { qty: 3 }],
};

/** Whatever json-logic-js answers or throws, the metered evaluator answers or throws too. */
const SAME_AS_JSON_LOGIC: unknown[] = [
  { '==': [1, '1'] },
  { '==': [[1, 2], '1,2'] },
  { '===': [{ var: 's' }, 'hello world'] },
  { '!=': [{ var: 'nil' }, 0] },
  { '!==': [1, 1] },
  { '<': [1, { var: 'n' }, 10] },
  { '<=': [5, { var: 'n' }, 5] },
  { '>': [{ var: 'xs' }, '1'] },
  { '>=': ['b', 'a'] },
  { '!!': [{ var: 'empty' }] },
  { '!': { var: 'nil' } },
  { '%': [7, 3] },
  { in: [2, { var: 'xs' }] },
  { in: ['wor', { var: 's' }] },
  { in: ['x', { var: 'nil' }] },
  { in: ['x', { var: 'nested' }] },
  { cat: ['a', { var: 'xs' }, null, 1.5] },
  { substr: [{ var: 's' }, -5] },
  { substr: [{ var: 's' }, 1, -2] },
  { substr: [{ var: 'xs' }, 1, 3] },
  { '+': ['1', 2, { var: 'n' }] },
  { '+': [] },
  { '*': [2, '3'] },
  { '*': [] },
  { '-': [{ var: 'n' }] },
  { '-': [10, 4] },
  { '/': [1, 0] },
  { min: [3, { var: 'n' }, '1'] },
  { max: [] },
  { merge: [1, [2, [3]], { var: 'xs' }] },
  { var: ['nested.deep.x'] },
  { var: ['nested.nope', 'fallback'] },
  { var: 'xs.1' },
  { var: '' },
  { var: [null, 'x'] },
  { missing: ['n', 'nope', 's'] },
  { missing: [['nope', 'xs']] },
  { missing_some: [1, ['n', 'nope']] },
  { missing_some: [2, ['n', 'nope', 'x']] },
  { missing_some: [1, { var: 'nope' }] },
  { if: [{ var: 'nil' }, 'a', { var: 'n' }, 'b', 'c'] },
  { if: [false, 1] },
  { if: [] },
  { '?:': [true, 1, 2] },
  { and: [1, { var: 'empty' }, 3] },
  { and: [] },
  { or: [0, { var: 'nil' }, ''] },
  { or: [0, 'x'] },
  { filter: [{ var: 'xs' }, { '>': [{ var: '' }, 1] }] },
  { filter: [{ var: 'n' }, true] },
  { map: [{ var: 'items' }, { '*': [{ var: 'qty' }, 2] }] },
  { reduce: [{ var: 'xs' }, { '+': [{ var: 'current' }, { var: 'accumulator' }] }, 10] },
  { reduce: [{ var: 'nope' }, 1] },
  { all: [{ var: 'xs' }, { '>': [{ var: '' }, 0] }] },
  { all: [{ var: 'empty' }, true] },
  { some: [{ var: 'words' }, { '==': [{ var: '' }, 'bb'] }] },
  { none: [{ var: 'empty' }, true] },
  { none: [{ var: 'xs' }, { '>': [{ var: '' }, 2] }] },
  [{ var: 'n' }, 'literal', [1, { var: 's' }]],
  { nope: [1] },
];

function outcome(run: () => unknown): { value?: unknown; threw?: string } {
  try {
    return { value: run() };
  } catch (err) {
    return { threw: (err as Error).constructor.name };
  }
}

describe('metered JSONLogic: the same answers as json-logic-js', () => {
  for (const logic of SAME_AS_JSON_LOGIC) {
    it(JSON.stringify(logic), () => {
      const theirs = outcome(() => jsonLogic.apply(logic as jsonLogic.RulesLogic, DATA));
      const ours = outcome(() => applyWithin(logic, DATA));
      expect(ours).to.deep.equal(theirs);
    });
  }
});

/** Steps one evaluation of `logic` on `data` spends. */
function stepsOf(logic: unknown, data: unknown): number {
  const meter: Meter = { steps: Infinity, spent: 0 };
  applyWithin(logic, data, meter);
  return meter.spent;
}

describe('metered JSONLogic: steps count the work done', () => {
  it('counts an `in` over a data list by the list length', () => {
    const logic = { in: [-1, { var: 'list' }] };
    const short = stepsOf(logic, { list: list(1000) });
    const long = stepsOf(logic, { list: list(2000) });
    expect(short).to.be.at.least(1000);
    expect(long - short).to.equal(1000);
  });

  it('counts an `in` over a string by its length', () => {
    const logic = { in: ['zz', { var: 's' }] };
    expect(stepsOf(logic, { s: 'a'.repeat(32_000) }) - stepsOf(logic, { s: 'a'.repeat(16_000) })).to.equal(1000);
  });

  const grows: Array<[string, unknown]> = [
    ['merge of data lists', { merge: [{ var: 'list' }, { var: 'list' }] }],
    ['cat of a data list', { cat: [{ var: 'list' }, 'x'] }],
    ['substr of a data list', { substr: [{ var: 'list' }, 0, 1] }],
    ['== between a list and a string', { '==': [{ var: 'list' }, 'x'] }],
    ['< between a list and a number', { '<': [{ var: 'list' }, 1] }],
    ['+ of a list', { '+': [{ var: 'list' }, 1] }],
    ['var of a path made of a list', { var: [{ var: 'list' }, 0] }],
    ['all over a data list', { all: [{ var: 'list' }, { '>=': [{ var: '' }, 0] }] }],
    ['map over a data list', { map: [{ var: 'list' }, 1] }],
  ];
  for (const [label, logic] of grows) {
    it(`counts ${label} by its length`, () => {
      const small = stepsOf(logic, { list: list(100) });
      const big = stepsOf(logic, { list: list(1000) });
      expect(big - small, `${small} → ${big}`).to.be.at.least(900);
    });
  }

  it('counts === between two strings by their length', () => {
    const logic = { '===': [{ var: 'a' }, { var: 'b' }] };
    const at = (n: number) => stepsOf(logic, { a: 'x'.repeat(n), b: 'x'.repeat(n) });
    expect(at(32_000) - at(16_000)).to.equal(1000);
  });

  it('stops a rule that passes the budget only through long lists: 20 ins over 1,500 items', () => {
    const logic = { or: list(20).map((i) => ({ in: [-1 - i, { var: 'list' }] })) };
    expect(ruleLogicIssues(logic), 'passes the save-time bound').to.deep.equal([]);
    expect(() => applyWithin(logic, { list: list(100) })).not.to.throw();
    expect(() => applyWithin(logic, { list: list(1500) })).to.throw(EvaluationBudgetError, /steps/);

    const set = compileRules([rule({ rule_id: 'heavy', logic }), rule({ rule_id: 'light', logic: true })]);
    expect(set.classify({ list: list(1500) }).rule_ids).to.deep.equal(['light']);
    expect(set.overBudget.get('heavy')).to.equal(1);
  });

  it('answers the rules test with the budget error (the 422) when one evaluation passes its budget on long lists', async () => {
    const logic = { or: list(20).map((i) => ({ in: [-1 - i, { var: 'list' }] })) };
    const sessions = [{ session_id: 'a', list: list(1500) }];
    const err = await testRules(sessions, [
      { rule_id: 'heavy', kind: 'classification', logic, tags: [], enabled: true },
    ]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(RuleTestBudgetError);
    expect((err as Error).message).to.equal(
      'Rule heavy passed the evaluation budget on the sessions given; simplify its logic',
    );
  });

  it('refuses a rules test of many events out of order before sorting them', async () => {
    const events = Array.from({ length: 60_000 }, (_, i) => ({ action: 'x', timestamp: 60_000 - i }));
    const err = await testRules(
      [{ session_id: 'a', events }],
      [{ rule_id: 'r', kind: 'classification', logic: true, tags: [], enabled: true }],
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as Error).message).to.match(/more than 500000 evaluation steps/);
  });
});

describe('time slices', () => {
  it('gives the event loop back between evaluations of a rules test', async () => {
    const sessions = Array.from({ length: 50 }, (_, i) => ({ session_id: `s${i}`, n: i }));
    const rules = [
      { rule_id: 'r', kind: 'classification' as const, logic: { '>': [{ var: 'n' }, 9] }, tags: [], enabled: true },
    ];
    let turns = 0;
    let counting = true;
    const count = () => {
      if (!counting) return;
      turns++;
      setImmediate(count);
    };
    setImmediate(count);
    const { results } = await testRules(sessions, rules, 0); // a slice of 0 ms: back after every evaluation
    counting = false;
    expect(results.filter((r) => r.matched.length > 0)).to.have.length(40);
    expect(turns).to.be.at.least(40);
  });

  it('takes turns between concurrent tasks, one slice each', async () => {
    const order: string[] = [];
    function* task(name: string) {
      for (let i = 0; i < 3; i++) {
        order.push(name);
        yield;
      }
      return name;
    }
    expect(await Promise.all([runSliced(task('a'), 0), runSliced(task('b'), 0)])).to.deep.equal(['a', 'b']);
    expect(order).to.deep.equal(['a', 'b', 'a', 'b', 'a', 'b']);
  });

  it('rejects with what the work throws', async () => {
    function* failing(): Generator<void, never> {
      throw new Error('boom');
    }
    const err = await runSliced(failing()).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).to.equal('boom');
  });
});
