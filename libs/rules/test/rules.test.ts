import { expect } from 'chai';
import { ruleLogicIssues, type RuleRecord } from '@spoor/schemas';
import { compileRules, parseRulesYaml, RulesCache, testRules, type CompilableRule } from '../src/index.js';

const rule = (over: Partial<CompilableRule> & { rule_id: string }): CompilableRule => ({
  kind: 'classification', logic: true, tags: [], label: null, attribute: null, value: null, enabled: true, ...over,
});

const summary = {
  session_id: 's1', event_count: 6, duration_ms: 90_000, page_count: 3,
  actions: { pageview: 3, signup: 1 }, geo: { country: 'DE', city: 'Berlin' }, browser: { name: 'Firefox', version: '128' },
  entry_url: 'https://acme.example/pricing', attributes: { plan: 'pro' }, url: null,
};

describe('rules: logic validation', () => {
  it('accepts literals and realistic logic', () => {
    for (const logic of [true, 1, 'x', null, [1, 2], { and: [{ '>=': [{ var: 'event_count' }, 3] }, { in: ['pricing', { var: 'entry_url' }] }] }, { '<': [1, { var: 'x' }, 3] }, { some: [{ var: 'items' }, { '==': [{ var: '' }, 'a'] }] }, { var: ['actions.signup', 0] }]) {
      expect(ruleLogicIssues(logic), JSON.stringify(logic)).to.deep.equal([]);
    }
  });

  it('names unknown operators with their path', () => {
    expect(ruleLogicIssues({ frob: [1] })).to.deep.equal([{ path: [], msg: "Unknown operator 'frob'", type: 'value_error' }]);
    expect(ruleLogicIssues({ or: [false, { and: [true, { log: 'x' }] }] })[0]!.path).to.deep.equal(['or', 1, 'and', 1]);
    expect(ruleLogicIssues({ method: [{ var: 'url' }, 'toString'] })[0]!.msg).to.match(/Unknown operator 'method'/);
  });

  it('refuses malformed operations, wrong arity and prototype paths', () => {
    expect(ruleLogicIssues({ '==': [1, 1], '!=': [1, 2] })[0]!.msg).to.match(/exactly one key/);
    expect(ruleLogicIssues({})[0]!.msg).to.match(/exactly one key/);
    expect(ruleLogicIssues({ '==': [1] })[0]).to.deep.include({ path: ['=='] });
    expect(ruleLogicIssues({ var: 'constructor.prototype' })).to.have.length(1);
    expect(ruleLogicIssues({ var: { cat: ['__pro', 'to__'] } })[0]!.msg).to.match(/literal path/);
  });

  it('bounds depth, node count and size', () => {
    const nest = (n: number): unknown => (n === 0 ? true : { '!': [nest(n - 1)] });
    expect(ruleLogicIssues(nest(32))).to.deep.equal([]);
    expect(ruleLogicIssues(nest(33))[0]!.msg).to.match(/deeper than 32/);
    expect(ruleLogicIssues({ and: Array.from({ length: 2500 }, () => true) })[0]!.msg).to.match(/more than 2000 nodes/);
    expect(ruleLogicIssues({ in: ['x', 'y'.repeat(40_000)] })[0]!.msg).to.match(/larger than 32 KB/);
  });
});

describe('rules: classification and attributes', () => {
  it('matches enabled classification rules in rule_id order with labels and tags', () => {
    const set = compileRules([
      rule({ rule_id: 'z-german', logic: { '==': [{ var: 'geo.country' }, 'DE'] }, tags: ['de'], label: 'German' }),
      rule({ rule_id: 'a-signup', logic: { '>': [{ var: 'actions.signup' }, 0] }, tags: ['converted', 'converted'], label: 'Converted' }),
      rule({ rule_id: 'm-off', logic: true, enabled: false }),
      rule({ rule_id: 'b-short', logic: { '<': [{ var: 'duration_ms' }, 1000] } }),
      rule({ rule_id: 'c-pro', logic: { '==': [{ var: 'attributes.plan' }, 'pro'] }, label: 'German' }),
      rule({ rule_id: 'attr', kind: 'attribute', logic: true, attribute: 'x', value: 1 }),
    ]);
    expect(set.classify(summary)).to.deep.equal({
      rule_ids: ['a-signup', 'c-pro', 'z-german'],
      labels: ['Converted', 'German'],
      tags: [{ rule_id: 'a-signup', tag: 'converted' }, { rule_id: 'z-german', tag: 'de' }],
    });
    expect(set.rule('m-off')).to.equal(undefined);
    expect(set.rule('z-german')).to.deep.equal({ label: 'German', tags: ['de'] });
  });

  it('counts a rule that throws as not matched', () => {
    const set = compileRules([rule({ rule_id: 'boom', logic: { substr: [{ var: 'missing' }, 1] } }), rule({ rule_id: 'ok', logic: true })]);
    expect(set.classify(summary).rule_ids).to.include('ok');
    const bad = compileRules([rule({ rule_id: 'cmp', logic: { '<': [{ var: 'x' }, { var: 'x.y.z' }, 1] } })]);
    expect(() => bad.classify({})).to.not.throw();
  });

  it('cannot reach prototypes through var, even in rules saved without validation', () => {
    const set = compileRules([rule({ rule_id: 'proto', logic: { '!!': [{ var: '__proto__' }] } }), rule({ rule_id: 'ctor', logic: { '!!': [{ var: 'constructor' }] } })]);
    expect(set.classify({}).rule_ids).to.deep.equal([]);
    expect(set.invalid).to.deep.equal(['ctor', 'proto']);
  });

  it('extracts attributes: the later rule wins, and reports changes', () => {
    const set = compileRules([
      rule({ rule_id: 'a', kind: 'attribute', logic: { '==': [{ var: 'action' }, 'signup'] }, attribute: 'plan', value: { var: 'payload.plan' } }),
      rule({ rule_id: 'b', kind: 'attribute', logic: { '==': [{ var: 'payload.plan' }, 'team'] }, attribute: 'plan', value: 'TEAM' }),
      rule({ rule_id: 'c', kind: 'attribute', logic: { '!!': [{ var: 'payload.seats' }] }, attribute: 'seats', value: { '*': [{ var: 'payload.seats' }, 1] } }),
    ]);
    const into: Record<string, unknown> = {};
    expect(set.extract({ action: 'signup', payload: { plan: 'pro' } }, into)).to.equal(true);
    expect(into).to.deep.equal({ plan: 'pro' });
    expect(set.extract({ action: 'signup', payload: { plan: 'pro' } }, into)).to.equal(false);
    expect(set.extract({ action: 'signup', payload: { plan: 'team', seats: '4' } }, into)).to.equal(true);
    expect(into).to.deep.equal({ plan: 'TEAM', seats: 4 });
    expect(set.extract({ action: 'x', payload: {} }, into)).to.equal(false);
  });
});

describe('rules: the YAML rules document', () => {
  it('reads a list, or a mapping with rules:, applying defaults', () => {
    const list = parseRulesYaml('- rule_id: a\n  logic: true\n');
    expect(list).to.deep.equal({ ok: true, rules: [{ rule_id: 'a', kind: 'classification', logic: true, tags: [], enabled: true }] });
    const mapping = parseRulesYaml('rules:\n  - rule_id: b\n    logic: {">": [{var: event_count}, 2]}\n    tags: [busy]\n');
    expect(mapping.ok && mapping.rules[0]!.logic).to.deep.equal({ '>': [{ var: 'event_count' }, 2] });
  });

  it('names line and column of a syntax error', () => {
    const r = parseRulesYaml('rules:\n  - rule_id: a\n    logic: [1, 2\n');
    expect(r.ok).to.equal(false);
    if (!r.ok) expect(r.issues[0]!.msg).to.match(/^YAML error at line \d+, column \d+: /);
  });

  it('refuses alias bombs, oversized and multi-document input, and non-lists', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 10; i++) bomb.push(`k${i}: &k${i} [${Array(9).fill(i === 0 ? '*a' : `*k${i - 1}`).join(', ')}]`);
    const bombed = parseRulesYaml(bomb.join('\n'));
    expect(!bombed.ok && bombed.issues[0]!.msg).to.match(/aliases/);
    expect(!parseRulesYaml(`# ${'x'.repeat(300 * 1024)}`).ok).to.equal(true);
    expect(parseRulesYaml('- rule_id: a\n  logic: true\n---\n- rule_id: b\n  logic: true\n')).to.deep.include({ ok: false });
    expect(parseRulesYaml('just a string')).to.deep.include({ ok: false });
    expect(parseRulesYaml('')).to.deep.include({ ok: false });
  });

  it('locates invalid and duplicate rules by index', () => {
    const r = parseRulesYaml('- rule_id: a\n  logic: {nope: 1}\n- logic: true\n- rule_id: c\n  logic: true\n- rule_id: c\n  logic: true\n- rule_id: d\n  kind: attribute\n  logic: true\n');
    expect(r.ok).to.equal(false);
    if (r.ok) return;
    const locs = r.issues.map((i) => [i.loc, i.type]);
    expect(locs).to.deep.include([['rules', 0, 'logic'], 'value_error']);
    expect(locs).to.deep.include([['rules', 1, 'rule_id'], 'missing']);
    expect(locs).to.deep.include([['rules', 3, 'rule_id'], 'value_error']);
    expect(locs).to.deep.include([['rules', 4, 'attribute'], 'missing']);
  });
});

describe('rules: testRules', () => {
  it('runs attribute rules over the events, then classification, per session', () => {
    const parsed = parseRulesYaml([
      '- rule_id: plan', '  kind: attribute', '  logic: {"==": [{var: action}, buy]}', '  attribute: plan', '  value: {var: payload.plan}',
      '- rule_id: pro', '  logic: {"==": [{var: attributes.plan}, pro]}', '  tags: [paying]', '  label: Pro',
      '- rule_id: long', '  logic: {">": [{var: duration_ms}, 60000]}',
    ].join('\n'));
    expect(parsed.ok).to.equal(true);
    if (!parsed.ok) return;
    const { results } = testRules([
      { session_id: 'a', duration_ms: 90_000 },
      { duration_ms: 10, events: [{ action: 'buy', timestamp: 2, payload: { plan: 'pro' } }, { action: 'buy', timestamp: 1, payload: { plan: 'free' } }, 'junk'] },
    ], parsed.rules);
    expect(results).to.deep.equal([
      { session_id: 'a', matched: ['long'], labels: [], tags: [], attributes: {} },
      { session_id: null, matched: ['pro'], labels: ['Pro'], tags: ['paying'], attributes: { plan: 'pro' } },
    ]);
  });
});

describe('rules: RulesCache', () => {
  it('reloads a project only when its stamp changes', async () => {
    const stored: RuleRecord[] = [];
    let loads = 0;
    const source = { list: async () => (loads++, stored.slice()) };
    const kv = new Map<string, string>();
    const stamps = {
      mget: async (keys: string[]) => keys.map((k) => kv.get(k) ?? null),
      incr: async (key: string) => {
        const n = Number(kv.get(key) ?? 0) + 1;
        kv.set(key, String(n));
        return n;
      },
    };
    const cache = new RulesCache(source, stamps, { clock: () => 0 });
    expect((await cache.forProjects(['p'])).get('p')!.classification).to.equal(0);
    await cache.forProjects(['p', 'p']);
    expect(loads).to.equal(1);
    stored.push({ project_id: 'p', rule_id: 'r', version: 1, kind: 'classification', logic: true, tags: [], label: null, attribute: null, value: null, description: null, enabled: true, created_at: 0, updated_at: 0, updated_by: 'a' });
    await RulesCache.changed(stamps, 'p');
    const after = (await cache.forProjects(['p'])).get('p')!;
    expect(loads).to.equal(2);
    expect(after.set.classify({}).rule_ids).to.deep.equal(['r']);
  });
});
