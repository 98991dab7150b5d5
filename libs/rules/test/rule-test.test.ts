import { expect } from 'chai';
import { RuleTestResult } from '@spoor/schemas';
import { parseRulesYaml, testRules } from '../src/index.js';
import { data, event, summary } from './fixtures.js';

const RULES = [
  '- rule_id: plan',
  '  kind: attribute',
  '  logic: {"==": [{var: action}, buy]}',
  '  attribute: plan',
  '  value: {var: payload.plan}',
  '- rule_id: pro',
  '  logic: {"==": [{var: attributes.plan}, pro]}',
  '  tags: [paying, pro]',
  '  label: Pro',
  '- rule_id: long',
  '  logic: {">": [{var: duration_ms}, 60000]}',
  '  tags: [paying]',
  '  label: Engaged',
  '- rule_id: off',
  '  logic: true',
  '  enabled: false',
  '  tags: [never]',
].join('\n');

function rules() {
  const parsed = parseRulesYaml(RULES);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.rules;
}

describe('testRules', () => {
  it('runs attribute rules over the events oldest first, then classification on the updated session', async () => {
    const buyer = {
      ...summary({ session_id: 'b', duration_ms: 10, attributes: { seen: true } }),
      events: [event('buy', { plan: 'pro' }, 2), event('buy', { plan: 'free' }, 1), 'junk'],
    };
    const reader = data(summary({ session_id: 'r', duration_ms: 90_000, attributes: {} }));
    const { results } = await testRules([buyer, reader, { session_id: 7 }], rules());
    expect(results).to.deep.equal([
      {
        session_id: 'b',
        matched: ['pro'],
        labels: ['Pro'],
        tags: ['paying', 'pro'],
        attributes: { seen: true, plan: 'pro' },
      },
      { session_id: 'r', matched: ['long'], labels: ['Engaged'], tags: ['paying'], attributes: {} },
      { session_id: null, matched: [], labels: [], tags: [], attributes: {} },
    ]);
    expect(RuleTestResult.safeParse({ results }).success).to.equal(true);
  });

  it('deduplicates tags across matched rules and writes nothing into the sessions', async () => {
    const session = {
      ...summary({ duration_ms: 90_000, attributes: { plan: 'free' } }),
      events: [event('buy', { plan: 'pro' })],
    };
    const before = JSON.stringify(session);
    const [result] = (await testRules([session], rules())).results;
    expect(result).to.deep.include({
      matched: ['long', 'pro'],
      labels: ['Engaged', 'Pro'],
      tags: ['paying', 'pro'],
      attributes: { plan: 'pro' },
    });
    expect(JSON.stringify(session)).to.equal(before);
  });
});
