import { expect } from 'chai';
import { ruleLogicIssues } from '@spoor/schemas';

/** `n` nested `!` operations around a literal: `{"!": [{"!": [… true]}]}`. */
const nestOps = (n: number): unknown => (n === 0 ? true : { '!': [nestOps(n - 1)] });
/** `n` nested arrays around a literal. */
const nestArrays = (n: number): unknown => (n === 0 ? 1 : [nestArrays(n - 1)]);

describe('ruleLogicIssues', () => {
  const accepted: Array<[string, unknown]> = [
    ['boolean literal', true],
    ['number literal', 0],
    ['string literal', 'x'],
    ['null literal', null],
    ['empty list', []],
    ['list of expressions', [1, { var: 'a' }, 'b']],
    ['var with a default', { var: ['actions.signup', 0] }],
    ['var with a numeric path', { var: 1 }],
    ['var of the whole data', { var: '' }],
    ['between form of <', { '<': [1, { var: 'x' }, 3] }],
    ['unary minus', { '-': 2 }],
    [
      'realistic classification',
      {
        and: [
          { '>=': [{ var: 'event_count' }, 3] },
          { in: ['pricing', { var: 'entry_url' }] },
          { or: [{ '==': [{ var: 'geo.country' }, 'DE'] }, { '!': { missing: ['attributes.plan'] } }] },
          {
            if: [
              { '>': [{ var: 'duration_ms' }, 60_000] },
              true,
              { some: [{ var: 'tags' }, { '==': [{ var: '' }, 'vip'] }] },
            ],
          },
        ],
      },
    ],
    [
      'scoped operations',
      {
        reduce: [
          { map: [{ var: 'items' }, { '*': [{ var: 'price' }, 2] }] },
          { '+': [{ var: 'current' }, { var: 'accumulator' }] },
          0,
        ],
      },
    ],
    ['string operations', { '==': [{ substr: [{ cat: ['a', { var: 'b' }] }, 0, 3] }, 'abc'] }],
    ['missing_some with literal keys', { missing_some: [1, ['geo.country', 'geo.city']] }],
    ['32 nested operations', nestOps(32)],
    ['32 nested lists', nestArrays(32)],
    ['2000 nodes', { and: Array.from({ length: 1999 }, () => true) }],
    ['31 KB of JSON', { in: ['x', 'y'.repeat(31 * 1024)] }],
  ];
  for (const [name, logic] of accepted) {
    it(`accepts ${name}`, () => expect(ruleLogicIssues(logic)).to.deep.equal([]));
  }

  const refused: Array<[string, unknown, Array<{ path: Array<string | number>; msg: string | RegExp }>]> = [
    ['an unknown operator', { frob: [1] }, [{ path: [], msg: "Unknown operator 'frob'" }]],
    [
      'a nested unknown operator, with its path',
      { and: [true, { or: [false, { foo: 1 }] }] },
      [{ path: ['and', 1, 'or', 1], msg: "Unknown operator 'foo'" }],
    ],
    [
      'every unknown operator',
      { and: [{ foo: 1 }, { '!': { bar: 2 } }] },
      [
        { path: ['and', 0], msg: "Unknown operator 'foo'" },
        { path: ['and', 1, '!'], msg: "Unknown operator 'bar'" },
      ],
    ],
    ['log (console output)', { log: 'x' }, [{ path: [], msg: "Unknown operator 'log'" }]],
    [
      'method (json-logic-js 1.x called methods on data)',
      { method: [{ var: 'url' }, 'toString'] },
      [{ path: [], msg: "Unknown operator 'method'" }],
    ],
    ['an inherited name as operator', { toString: [] }, [{ path: [], msg: "Unknown operator 'toString'" }]],
    ['__proto__ as operator', JSON.parse('{"__proto__": [1]}'), [{ path: [], msg: "Unknown operator '__proto__'" }]],
    ['an object with two keys', { '==': [1, 1], '!=': [1, 2] }, [{ path: [], msg: /exactly one key.*'==', '!='/ }]],
    ['an empty object', { or: [{}] }, [{ path: ['or', 0], msg: /exactly one key.*none/ }]],
    ['== with one argument', { '==': [1] }, [{ path: ['=='], msg: "'==' takes 2 arguments, got 1" }]],
    ['> with three arguments', { '>': [1, 2, 3] }, [{ path: ['>'], msg: "'>' takes 2 arguments, got 3" }]],
    ['< with four arguments', { '<': [1, 2, 3, 4] }, [{ path: ['<'], msg: "'<' takes 2 to 3 arguments, got 4" }]],
    ['if without arguments', { if: [] }, [{ path: ['if'], msg: "'if' takes at least 1 argument, got 0" }]],
    ['a computed var path', { var: { cat: ['__pro', 'to__'] } }, [{ path: ['var'], msg: /literal path/ }]],
    ['var of a boolean', { var: true }, [{ path: ['var'], msg: /literal path/ }]],
    [
      'var __proto__',
      { '!!': { var: '__proto__' } },
      [{ path: ['!!', 'var'], msg: "var path segment '__proto__' is not allowed" }],
    ],
    [
      'var constructor.prototype',
      { var: 'constructor.prototype' },
      [{ path: ['var'], msg: "var path segment 'constructor' is not allowed" }],
    ],
    [
      'var into an inherited method',
      { var: ['geo.toString', 'x'] },
      [{ path: ['var'], msg: "var path segment 'toString' is not allowed" }],
    ],
    ['missing __proto__', { missing: ['a', '__proto__'] }, [{ path: ['missing'], msg: /'__proto__' is not allowed/ }]],
    [
      'missing_some constructor',
      { missing_some: [1, ['a', 'b.constructor']] },
      [{ path: ['missing_some'], msg: /'constructor' is not allowed/ }],
    ],
    [
      '33 nested operations',
      nestOps(33),
      [{ path: Array.from({ length: 33 }, () => ['!', 0]).flat(), msg: 'Logic nests deeper than 32 levels' }],
    ],
    [
      '33 nested lists',
      nestArrays(33),
      [{ path: Array.from({ length: 33 }, () => 0), msg: 'Logic nests deeper than 32 levels' }],
    ],
    [
      '2001 nodes',
      { and: Array.from({ length: 2000 }, () => true) },
      [{ path: [], msg: 'Logic has more than 2000 nodes' }],
    ],
    ['33 KB of JSON', { in: ['x', 'y'.repeat(33 * 1024)] }, [{ path: [], msg: 'Logic is larger than 32 KB of JSON' }]],
    [
      '32 KB of characters, 34 KB of UTF-8',
      { in: ['x', 'é'.repeat(17 * 1024)] },
      [{ path: [], msg: 'Logic is larger than 32 KB of JSON' }],
    ],
  ];
  for (const [name, logic, want] of refused) {
    it(`refuses ${name}`, () => {
      const issues = ruleLogicIssues(logic);
      expect(issues.map((i) => i.path)).to.deep.equal(want.map((w) => w.path));
      issues.forEach((issue, i) => {
        const msg = want[i]!.msg;
        if (typeof msg === 'string') expect(issue.msg).to.equal(msg);
        else expect(issue.msg).to.match(msg);
        expect(issue.type).to.equal('value_error');
      });
    });
  }

  it('stops at the depth limit on very deep or cyclic input instead of overflowing the stack', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    expect(ruleLogicIssues(deep).map((i) => i.msg)).to.deep.equal(['Logic nests deeper than 32 levels']);
    const cyclic: { and: unknown[] } = { and: [] };
    cyclic.and.push(cyclic);
    expect(ruleLogicIssues(cyclic).map((i) => i.msg)).to.deep.equal(['Logic nests deeper than 32 levels']);
  });

  it('never throws on arbitrary JSON (seeded random values)', () => {
    let seed = 42;
    const rand = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % n);
    const keys = ['var', 'and', 'in', 'if', '==', 'missing', 'missing_some', 'x', '__proto__', 'constructor', ''];
    const value = (depth: number): unknown => {
      switch (depth > 6 ? rand(4) : rand(7)) {
        case 0:
          return rand(2) === 0;
        case 1:
          return rand(100) - 50;
        case 2:
          return ['', 'a.b', '__proto__', 'toString'][rand(4)];
        case 3:
          return null;
        case 4:
          return Array.from({ length: rand(4) }, () => value(depth + 1));
        default:
          return Object.fromEntries(
            Array.from({ length: rand(3) }, () => [keys[rand(keys.length)]!, value(depth + 1)]),
          );
      }
    };
    for (let i = 0; i < 2000; i++) {
      const logic = JSON.parse(JSON.stringify(value(0)) ?? 'null') as unknown;
      expect(() => ruleLogicIssues(logic), JSON.stringify(logic)).to.not.throw();
    }
  });
});
