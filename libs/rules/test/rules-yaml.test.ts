import { expect } from 'chai';
import { RULE_TEST_LIMITS } from '@spoor/schemas';
import { parseRulesYaml, type RulesYamlResult } from '../src/index.js';

const issues = (r: RulesYamlResult) => (r.ok ? [] : r.issues);
const refusal = (r: RulesYamlResult) => {
  expect(r.ok, JSON.stringify(r)).to.equal(false);
  return issues(r);
};

describe('parseRulesYaml', () => {
  it('reads a list of rule definitions, applying defaults', () => {
    const text = [
      '- rule_id: engaged',
      '  logic: {">=": [{var: event_count}, 5]}',
      '  tags: [engaged]',
      '  label: Engaged',
      '- rule_id: plan',
      '  kind: attribute',
      '  logic: true',
      '  attribute: plan',
      '  value: {var: payload.plan}',
      '  enabled: false',
    ].join('\n');
    expect(parseRulesYaml(text)).to.deep.equal({
      ok: true,
      rules: [
        {
          rule_id: 'engaged',
          kind: 'classification',
          logic: { '>=': [{ var: 'event_count' }, 5] },
          tags: ['engaged'],
          label: 'Engaged',
          enabled: true,
        },
        {
          rule_id: 'plan',
          kind: 'attribute',
          logic: true,
          attribute: 'plan',
          value: { var: 'payload.plan' },
          tags: [],
          enabled: false,
        },
      ],
    });
  });

  it('reads a mapping with a rules: list', () => {
    expect(parseRulesYaml('rules:\n  - rule_id: b\n    logic: {"==": [{var: geo.country}, DE]}\n')).to.deep.equal({
      ok: true,
      rules: [
        {
          rule_id: 'b',
          kind: 'classification',
          logic: { '==': [{ var: 'geo.country' }, 'DE'] },
          tags: [],
          enabled: true,
        },
      ],
    });
  });

  it('accepts a few aliases (shared logic)', () => {
    const r = parseRulesYaml(
      '- rule_id: a\n  logic: &de {"==": [{var: geo.country}, DE]}\n- rule_id: b\n  logic: {and: [*de, *de]}\n',
    );
    expect(r.ok && r.rules[1]!.logic).to.deep.equal({
      and: [{ '==': [{ var: 'geo.country' }, 'DE'] }, { '==': [{ var: 'geo.country' }, 'DE'] }],
    });
  });

  const syntax: Array<[string, string, string]> = [
    [
      'a reserved character',
      '- rule_id: a\n  logic: @x\n',
      'YAML error at line 2, column 10: Plain value cannot start with reserved character @',
    ],
    [
      'a duplicate key',
      '- rule_id: a\n  logic: true\n  logic: false\n',
      'YAML error at line 3, column 3: Map keys must be unique',
    ],
    [
      'bad indentation',
      '- rule_id: a\n  logic: "x"\n   tags: [x]\n',
      'YAML error at line 3, column 1: All mapping items must start at the same column',
    ],
  ];
  for (const [name, text, msg] of syntax) {
    it(`names line and column of a syntax error: ${name}`, () => {
      expect(refusal(parseRulesYaml(text))).to.deep.equal([{ loc: ['rules'], msg, type: 'value_error' }]);
    });
  }

  it('refuses an alias bomb', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 10; i++)
      bomb.push(
        `k${i}: &k${i} [${Array(9)
          .fill(i === 0 ? '*a' : `*k${i - 1}`)
          .join(', ')}]`,
      );
    expect(refusal(parseRulesYaml(bomb.join('\n')))).to.deep.equal([
      {
        loc: ['rules'],
        msg: 'Aliases expand beyond the limit of 100 (an alias bomb): the rules document is refused',
        type: 'value_error',
      },
    ]);
  });

  it('tells an unresolved alias from a bomb', () => {
    expect(refusal(parseRulesYaml('- rule_id: a\n  logic: *nope\n'))[0]!.msg).to.match(/^YAML error: Unresolved alias/);
  });

  it('refuses a document over the size limit, and takes one at the limit', () => {
    const rules = '- rule_id: a\n  logic: true\n';
    const padded = (bytes: number) => `# ${'x'.repeat(bytes - rules.length - 3)}\n${rules}`;
    expect(padded(RULE_TEST_LIMITS.yamlBytes)).to.have.length(RULE_TEST_LIMITS.yamlBytes);
    expect(parseRulesYaml(padded(RULE_TEST_LIMITS.yamlBytes)).ok).to.equal(true);
    expect(refusal(parseRulesYaml(padded(RULE_TEST_LIMITS.yamlBytes + 1)))).to.deep.equal([
      { loc: ['rules'], msg: 'The rules document is larger than 256 KB', type: 'value_error' },
    ]);
    // Measured in UTF-8 bytes, not characters.
    expect(refusal(parseRulesYaml(`# ${'é'.repeat(RULE_TEST_LIMITS.yamlBytes / 2)}\n${rules}`))[0]!.msg).to.match(
      /larger than/,
    );
  });

  const shapes: Array<[string, string, string]> = [
    [
      'several documents',
      '- rule_id: a\n  logic: true\n---\n- rule_id: b\n  logic: true\n',
      'Expected one YAML document, got 2',
    ],
    ['an empty document', '', 'The rules document is empty'],
    ['a scalar', 'just a string', 'Expected a list of rules, or a mapping with a `rules:` list'],
    [
      'a mapping without rules:',
      'rule:\n  - rule_id: a\n',
      'Expected a list of rules, or a mapping with a `rules:` list',
    ],
    ['rules: that is not a list', 'rules: 5\n', 'Expected a list of rules, or a mapping with a `rules:` list'],
  ];
  for (const [name, text, msg] of shapes) {
    it(`refuses ${name}`, () =>
      expect(refusal(parseRulesYaml(text))).to.deep.equal([{ loc: ['rules'], msg, type: 'value_error' }]));
  }

  it('locates invalid entries by index and field', () => {
    const text = [
      '- rule_id: a',
      '  logic: {and: [true, {nope: 1}]}',
      '- logic: true',
      '- rule_id: c',
      '  kind: attribute',
      '  logic: true',
      '- rule_id: d',
      '  logic: true',
      '  extra: 1',
      '- 5',
      '- rule_id: f',
      '  logic: true',
    ].join('\n');
    expect(refusal(parseRulesYaml(text)).map((i) => [i.loc, i.type, i.msg])).to.deep.equal([
      [['rules', 0, 'logic', 'and', 1], 'value_error', "Unknown operator 'nope'"],
      [['rules', 1, 'rule_id'], 'missing', 'Field required'],
      [['rules', 2, 'attribute'], 'missing', 'Field required for attribute rules'],
      [['rules', 2, 'value'], 'missing', 'Field required for attribute rules'],
      [['rules', 3], 'unrecognized_keys', 'Unrecognized key: "extra"'],
      [['rules', 4], 'invalid_type', 'Invalid input: expected object, received number'],
    ]);
  });

  it('refuses a __proto__ key rather than letting it set a prototype', () => {
    expect(
      refusal(parseRulesYaml('- rule_id: a\n  logic: true\n  __proto__: {enabled: false}\n')).map((i) => i.loc),
    ).to.deep.equal([['rules', 0]]);
  });

  it('refuses duplicate rule_ids, naming the first entry', () => {
    expect(
      refusal(
        parseRulesYaml('- rule_id: a\n  logic: true\n- rule_id: b\n  logic: true\n- rule_id: a\n  logic: false\n'),
      ),
    ).to.deep.equal([
      { loc: ['rules', 2, 'rule_id'], msg: "Duplicate rule_id 'a' (also entry 0)", type: 'value_error' },
    ]);
  });
});
