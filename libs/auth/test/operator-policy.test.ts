import { expect } from 'chai';
import { OperatorPolicy } from '../src/operator-policy.js';

const ann = { account_id: 'a-ann', email: 'ann@example.com' };
const bob = { account_id: 'a-bob', email: 'Bob@Example.com' };

describe('OperatorPolicy (issue 45: the first account, unless SPOOR_ADMIN_EMAILS names others)', () => {
  it('makes the first account the operator while the list is empty, asking once it has an answer', async () => {
    let asked = 0;
    const policy = new OperatorPolicy([], async () => (++asked, 'a-ann'));
    expect(await policy.isOperatorAccount(ann)).to.equal(true);
    expect(await policy.isOperatorAccount(bob)).to.equal(false);
    expect(asked).to.equal(1);
  });

  it('asks again while the install has no account yet', async () => {
    let first: string | null = null;
    const policy = new OperatorPolicy([], async () => first);
    expect(await policy.isOperatorAccount(ann)).to.equal(false);
    first = 'a-ann';
    expect(await policy.isOperatorAccount(ann)).to.equal(true);
  });

  it('lets the list decide when it names anyone: the first account is then no operator unless named', async () => {
    const policy = new OperatorPolicy([' bob@example.com '], async () => 'a-ann');
    expect(await policy.isOperatorAccount(ann)).to.equal(false);
    expect(await policy.isOperatorAccount(bob)).to.equal(true);
    expect(await policy.isOperatorAccount({ account_id: 'x', email: null })).to.equal(false);
  });

  it('gives API keys the power only with scope operator', async () => {
    const policy = new OperatorPolicy([], async () => 'a-ann');
    expect(await policy.isOperator(ann, null)).to.equal(true);
    expect(await policy.isOperator(ann, 'operator')).to.equal(true);
    expect(await policy.isOperator(ann, 'full')).to.equal(false);
    expect(await policy.isOperator(ann, 'read')).to.equal(false);
  });

  it('has no operator without a list and without a way to find the first account', async () => {
    expect(await new OperatorPolicy().isOperatorAccount(ann)).to.equal(false);
  });
});
