import { expect } from 'chai';
import { ApiClient, signUp } from '../support/api-client.js';
import { startSpoor, type Harness } from '../support/spoor-harness.js';

// Issue 42, item 2: `in` over a list cost one step, so POST /v1/rules/test of sessions with
// long lists ran seconds of evaluation on the HTTP thread. Steps now count the items scanned,
// and the test runs time-sliced (its YAML parsed on a worker thread). How long other requests
// wait is measured by bench/rules/run.ts, not here: this asserts the answers.

const list = (n: number) => Array.from({ length: n }, (_, i) => i);
/** An `or` of `ins` `in`s, none of whose needles is in the list: each scans all of it. */
const orOfIns = (ins: number) => ({ or: list(ins).map((i) => ({ in: [-1 - i, { var: 'list' }] })) });
const yaml = (ruleId: string, logic: unknown) => `- rule_id: ${ruleId}\n  logic: ${JSON.stringify(logic)}\n`;

describe('POST /v1/rules/test: the cost of long lists (issue 42)', function () {
  this.timeout(120_000);
  let spoor: Harness;
  let api: ApiClient;

  before(async () => {
    spoor = (await startSpoor('embedded'))!;
    api = await signUp(spoor.url);
  });
  after(async () => spoor?.stop());

  it('refuses with 422 a rule that passes the budget only through the lists it scans', async () => {
    // 20 ins over 1,500 items: 30,000 items scanned for one session, past the 20,000 steps.
    const sessions = list(300).map((i) => ({ session_id: `s${i}`, list: list(1500) }));
    const res = await api.post('/v1/rules/test', { sessions, rules: yaml('heavy', orOfIns(20)) });
    expect(res.status, res.text).to.equal(422);
    expect(res.body.detail).to.deep.equal([
      {
        loc: ['body', 'rules'],
        msg: 'Rule heavy passed the evaluation budget on the sessions given; simplify its logic',
        type: 'value_error',
      },
    ]);
  });

  it('answers the same rule on short lists', async () => {
    const sessions = [
      { session_id: 'a', list: list(100) },
      { session_id: 'b', list: [-3] },
    ];
    const res = await api.post('/v1/rules/test', { sessions, rules: yaml('heavy', orOfIns(20)) });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.results.map((r: { matched: string[] }) => r.matched)).to.deep.equal([[], ['heavy']]);
  });

  it("serves other requests while the issue's probe runs, and answers the probe with its 422", async () => {
    const sessions = list(900).map((i) => ({ session_id: `s${i}`, list: new Array(1500).fill(0) }));
    const probe = api.post('/v1/rules/test', { sessions, rules: yaml('probe', orOfIns(450)) });
    const light = api.post('/v1/rules/test', {
      sessions: [{ session_id: 'x', n: 2 }],
      rules: yaml('light', { '>': [{ var: 'n' }, 1] }),
    });
    const health = await Promise.all(list(5).map(() => fetch(`${spoor.url}/healthz`).then((r) => r.status)));
    const [heavy, answered] = await Promise.all([probe, light]);
    expect(health).to.deep.equal([200, 200, 200, 200, 200]);
    expect(answered.status, answered.text).to.equal(200);
    expect(answered.body.results[0].matched).to.deep.equal(['light']);
    expect(heavy.status, heavy.text).to.equal(422);
    expect(heavy.body.detail[0].msg).to.equal(
      'Rule probe passed the evaluation budget on the sessions given; simplify its logic',
    );
  });
});
