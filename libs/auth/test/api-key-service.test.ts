import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { HttpError } from '@spoor/http';
import { ApiKeyService } from '../src/index.js';
import { InMemoryApiKeys } from './in-memory-repositories.js';

async function rejection(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('ApiKeyService', function () {
  let now = 1_700_000_000_000;
  const setup = () => {
    const repo = new InMemoryApiKeys();
    return { repo, service: new ApiKeyService(repo, () => (now += 1000)) };
  };

  it('creates a spk_ key of 32 random bytes and stores only its SHA-256', async () => {
    const { repo, service } = setup();
    const created = await service.create('acct-1', 'ci');
    expect(created.api_key_name).to.equal('ci');
    expect(created.api_key).to.match(/^spk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(created.api_key.slice(4), 'base64url')).to.have.length(32);
    expect(repo.rows[0]).to.include({
      account_id: 'acct-1',
      api_key_name: 'ci',
      key_hash: createHash('sha256').update(created.api_key).digest('hex'),
      revoked_at: null,
    });
    expect(JSON.stringify(repo.rows)).to.not.contain(created.api_key);
    expect((await service.create('acct-1', 'other')).api_key).to.not.equal(created.api_key);
  });

  it('lists names, scopes and creation times only, oldest first, never a secret or hash', async () => {
    const { service } = setup();
    const a = await service.create('acct-1', 'first');
    const b = await service.create('acct-1', 'second', 'read');
    await service.create('acct-2', 'not-mine');
    const listed = await service.list('acct-1');
    expect(listed.map((k) => [k.api_key_name, k.scope])).to.deep.equal([
      ['first', 'full'],
      ['second', 'read'],
    ]);
    for (const item of listed) expect(Object.keys(item).sort()).to.deep.equal(['api_key_name', 'created_at', 'scope']);
    const text = JSON.stringify(listed);
    for (const secret of [a.api_key, b.api_key]) {
      expect(text).to.not.contain(secret);
      expect(text).to.not.contain(createHash('sha256').update(secret).digest('hex'));
    }
  });

  it('refuses a live duplicate name (409) and a bad name (422); a revoked name can be reused', async () => {
    const { service } = setup();
    await service.create('acct-1', 'ci');
    expect(await rejection(service.create('acct-1', 'ci')))
      .to.be.instanceOf(HttpError)
      .and.include({ status: 409, code: 'api_key_name_taken' });
    expect(await service.create('acct-2', 'ci')).to.include({ api_key_name: 'ci' });
    expect(await rejection(service.create('acct-1', 'bad name')))
      .to.be.instanceOf(HttpError)
      .and.include({ status: 422, code: 'validation_error' });
    expect(await service.revoke('acct-1', 'ci')).to.equal(true);
    expect(await service.create('acct-1', 'ci')).to.include({ api_key_name: 'ci' });
  });

  it('revokes: true once, then false; false for unknown, foreign and malformed names', async () => {
    const { service } = setup();
    await service.create('acct-1', 'ci');
    expect(await service.revoke('acct-2', 'ci')).to.equal(false);
    expect(await service.revoke('acct-1', 'ci')).to.equal(true);
    expect(await service.revoke('acct-1', 'ci')).to.equal(false);
    expect(await service.revoke('acct-1', 'nope')).to.equal(false);
    expect(await service.revoke('acct-1', '../etc')).to.equal(false);
    expect(await service.list('acct-1')).to.deep.equal([]);
  });
});
