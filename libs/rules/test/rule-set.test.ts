import { expect } from 'chai';
import jsonLogic from 'json-logic-js';
import { compileRules } from '../src/index.js';
import { attributeRule, data, event, rule, summary } from './fixtures.js';

describe('compileRules: classify', () => {
  const set = compileRules([
    rule({ rule_id: 'z-german', logic: { '==': [{ var: 'geo.country' }, 'DE'] }, tags: ['de'], label: 'Local' }),
    rule({
      rule_id: 'a-signup',
      logic: { '>': [{ var: 'actions.signup' }, 0] },
      tags: ['converted', 'converted'],
      label: 'Converted',
    }),
    rule({
      rule_id: 'b-engaged',
      logic: { and: [{ '>=': [{ var: 'event_count' }, 5] }, { '>': [{ var: 'duration_ms' }, 60_000] }] },
      tags: ['engaged'],
    }),
    rule({ rule_id: 'c-pro', logic: { '==': [{ var: 'attributes.plan' }, 'pro'] }, label: 'Local' }),
    rule({ rule_id: 'd-pricing', logic: { in: ['/pricing', { var: 'entry_url' }] } }),
    rule({ rule_id: 'e-off', logic: true, enabled: false, label: 'Off', tags: ['off'] }),
    // json-logic truthiness: an empty list is false (JavaScript would say true).
    rule({ rule_id: 'f-tagged', logic: { filter: [{ var: 'tags' }, true] } }),
    attributeRule('g-attr', true, 'x', 1),
  ]);

  it('answers matched rule ids sorted, labels deduplicated in rule_id order, tags as pairs', () => {
    expect(set.classify(data(summary()))).to.deep.equal({
      rule_ids: ['a-signup', 'b-engaged', 'c-pro', 'd-pricing', 'z-german'],
      labels: ['Converted', 'Local'],
      tags: [
        { rule_id: 'a-signup', tag: 'converted' },
        { rule_id: 'b-engaged', tag: 'engaged' },
        { rule_id: 'z-german', tag: 'de' },
      ],
    });
  });

  it('matches per session: another visitor gets another verdict', () => {
    const bounce = summary({
      session_id: 's-2',
      event_count: 1,
      duration_ms: 0,
      actions: { pageview: 1 },
      entry_url: 'https://acme.example/',
      attributes: {},
      tags: ['vip'],
      geo: { country: 'FR', region: null, city: null, latitude: null, longitude: null },
    });
    expect(set.classify(data(bounce))).to.deep.equal({ rule_ids: ['f-tagged'], labels: [], tags: [] });
  });

  it('skips disabled rules and leaves attribute rules to extract', () => {
    expect(set.rule('e-off')).to.equal(undefined);
    expect(set.classify(data(summary())).rule_ids).to.not.include.members(['e-off', 'g-attr']);
    expect(
      compileRules([
        rule({ rule_id: 'on', logic: true }),
        rule({ rule_id: 'off', logic: true, enabled: false }),
      ]).classify({}).rule_ids,
    ).to.deep.equal(['on']);
  });

  it('counts a rule that throws as not matched, and the other rules still run', () => {
    // json-logic-js reads `options.length` of missing_some's second argument: null throws.
    const throwing = { missing_some: [1, { var: 'nope' }] };
    expect(() => jsonLogic.apply(throwing as jsonLogic.RulesLogic, {})).to.throw(TypeError);
    const guarded = compileRules([
      rule({ rule_id: 'boom', logic: throwing }),
      rule({ rule_id: 'ok', logic: { var: 'event_count' } }),
    ]);
    expect(guarded.classify(data(summary())).rule_ids).to.deep.equal(['ok']);
    expect(guarded.classify(data(summary())).rule_ids).to.deep.equal(['ok']);
    expect([...guarded.errors]).to.deep.equal([['boom', 2]]);
  });

  it('survives data that throws when read', () => {
    const guarded = compileRules([
      rule({ rule_id: 'geo', logic: { var: 'geo.country' } }),
      rule({ rule_id: 'ok', logic: true }),
    ]);
    const hostile = Object.defineProperty({}, 'geo', {
      enumerable: true,
      get: () => {
        throw new Error('getter');
      },
    });
    expect(guarded.classify(hostile).rule_ids).to.deep.equal(['ok']);
    expect(guarded.errors.get('geo')).to.equal(1);
  });
});

describe('compileRules: prototype access', () => {
  // Logic saved before the validator knew better, or written to the store by hand.
  const reaching = [
    { '!!': { var: '__proto__' } },
    { '!!': { var: 'constructor.prototype' } },
    { '!!': { var: 'toString' } },
    { '!!': { var: 'geo.hasOwnProperty' } },
    { '!': { missing: ['valueOf'] } },
    { '!!': { var: { cat: ['__pro', 'to__'] } } },
  ];

  it('json-logic-js on its own reaches into prototypes (the reason for the guard)', () => {
    for (const logic of reaching)
      expect(
        jsonLogic.truthy(jsonLogic.apply(logic as jsonLogic.RulesLogic, data(summary()))),
        JSON.stringify(logic),
      ).to.equal(true);
  });

  it('never runs such logic: the rules are left out as invalid', () => {
    const set = compileRules(reaching.map((logic, i) => rule({ rule_id: `r${i}`, logic })));
    expect(set.classify(data(summary())).rule_ids).to.deep.equal([]);
    expect(set.invalid).to.deep.equal(reaching.map((_, i) => `r${i}`));
    const values = compileRules([attributeRule('v', true, 'leak', { var: 'constructor' })]);
    const into: Record<string, unknown> = {};
    expect(values.extract(data(event('x', {})), into)).to.equal(false);
    expect(into).to.deep.equal({});
  });

  it('writes an attribute named __proto__ as a plain property, polluting nothing', () => {
    const set = compileRules([attributeRule('p', true, '__proto__', { var: 'payload' })]);
    const into: Record<string, unknown> = {};
    expect(set.extract(data(event('x', { polluted: true })), into)).to.equal(true);
    expect(Object.getPrototypeOf(into)).to.equal(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(into, '__proto__')?.value).to.deep.equal({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });
});

describe('compileRules: extract', () => {
  const set = compileRules(
    [
      // Given out of order: evaluation follows rule_id, so 'b-team' overrides 'a-plan'.
      attributeRule('b-team', { '==': [{ var: 'payload.plan' }, 'team'] }, 'plan', 'TEAM'),
      attributeRule('a-plan', { '==': [{ var: 'action' }, 'signup'] }, 'plan', { var: 'payload.plan' }),
      attributeRule('c-seats', { '!!': [{ var: 'payload.seats' }] }, 'seats', { '*': [{ var: 'payload.seats' }, 1] }),
      attributeRule('d-where', { '==': [{ var: 'action' }, 'signup'] }, 'signup_from', {
        cat: [{ var: 'geo.country' }, ':', { var: 'path' }],
      }),
      attributeRule('e-off', true, 'off', 1),
      rule({ rule_id: 'f-classification', logic: true }),
    ].map((r) => (r.rule_id === 'e-off' ? { ...r, enabled: false } : r)),
  );

  it('sets the value expression of each rule whose logic holds', () => {
    const into: Record<string, unknown> = { kept: 1 };
    expect(set.extract(data(event('signup', { plan: 'pro' })), into)).to.equal(true);
    expect(into).to.deep.equal({ kept: 1, plan: 'pro', signup_from: 'DE:/signup' });
  });

  it('lets the later rule_id win on the same attribute', () => {
    const into: Record<string, unknown> = {};
    expect(set.extract(data(event('signup', { plan: 'team', seats: '4' })), into)).to.equal(true);
    expect(into).to.deep.equal({ plan: 'TEAM', seats: 4, signup_from: 'DE:/signup' });
  });

  it('answers whether anything changed, comparing end states', () => {
    const into: Record<string, unknown> = {};
    expect(set.extract(data(event('signup', { plan: 'pro' })), into)).to.equal(true);
    expect(set.extract(data(event('signup', { plan: 'pro' })), into)).to.equal(false);
    expect(set.extract(data(event('pageview', {})), into)).to.equal(false);
    // 'a-plan' would set 'team', 'b-team' sets 'TEAM' again: no net change.
    const settled: Record<string, unknown> = { plan: 'TEAM', signup_from: 'DE:/signup' };
    expect(set.extract(data(event('signup', { plan: 'team' })), settled)).to.equal(false);
    expect(settled).to.deep.equal({ plan: 'TEAM', signup_from: 'DE:/signup' });
  });

  it('skips a value expression that throws, counting it', () => {
    const throwing = compileRules([
      attributeRule('v', true, 'n', { missing_some: [1, { var: 'nope' }] }),
      attributeRule('w', true, 'm', 2),
    ]);
    const into: Record<string, unknown> = {};
    expect(throwing.extract({}, into)).to.equal(true);
    expect(into).to.deep.equal({ m: 2 });
    expect(throwing.errors.get('v')).to.equal(1);
  });
});
