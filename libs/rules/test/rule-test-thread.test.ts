// POST /v1/rules/test on the rules worker thread (issue 42, target 2): the request's text goes
// over, and the verdicts or the first thing wrong come back, in the order a request is checked.
import { expect } from 'chai';
import { testRulesOffThread } from '../src/index.js';

const RULE = '- rule_id: buyer\n  logic: {"in": ["buy", {"var": "actions_list"}]}\n  tags: [buyer]\n';
const body = (value: unknown) => JSON.stringify(value);

describe('testRulesOffThread', function () {
  this.timeout(20_000);

  it('answers the verdicts of a valid test', async () => {
    const reply = await testRulesOffThread(
      body({ sessions: [{ session_id: 's1', actions_list: ['view', 'buy'] }, { session_id: 's2' }], rules: RULE }),
    );
    expect(reply.kind).to.equal('ok');
    const results = reply.kind === 'ok' ? reply.results : [];
    expect(results.map((r) => [r.session_id, r.matched])).to.deep.equal([
      ['s1', ['buyer']],
      ['s2', []],
    ]);
  });

  it('says what is wrong: malformed JSON, too deep, a bad body, bad rules, past the budget', async () => {
    expect((await testRulesOffThread('{"sessions": [')).kind).to.equal('malformed');
    expect(await testRulesOffThread('['.repeat(100) + ']'.repeat(100))).to.deep.equal({ kind: 'too_deep', limit: 64 });
    const bad = await testRulesOffThread(body({ sessions: 'none' }));
    expect(bad.kind).to.equal('invalid_body');
    expect(bad.kind === 'invalid_body' && bad.issues.map((i) => i.path.join('.')).sort()).to.deep.equal([
      'rules',
      'sessions',
    ]);
    const rules = await testRulesOffThread(body({ sessions: [], rules: '- rule_id: x\n  logic: {nope: 1}\n' }));
    expect(rules.kind).to.equal('invalid_rules');
    const list = Array.from({ length: 1500 }, (_, i) => i);
    const sessions = Array.from({ length: 900 }, (_, i) => ({ session_id: `s${i}`, list }));
    const ins = Array.from({ length: 450 }, (_, i) => `{"in": [${i + 5000}, {"var": "list"}]}`).join(', ');
    const heavy = await testRulesOffThread(body({ sessions, rules: `- rule_id: heavy\n  logic: {"or": [${ins}]}\n` }));
    expect(heavy.kind).to.equal('over_budget');
  });
});
