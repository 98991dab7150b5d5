// Issue 45, item 4, in both modes: on an install whose SPOOR_ADMIN_EMAILS names nobody, the first
// account is the operator (health, operator API keys) and no later account is; the first
// account's deletion passes the power to nobody. With SPOOR_ADMIN_EMAILS set, the list decides
// (libs/auth/test/operator-policy.test.ts).
import { expect } from 'chai';
import { requireEngine } from '@spoor/testkit';
import { signUp, type ApiClient } from '../support/api-client.js';
import { MODES } from '../support/engine-env.js';
import { startSpoor, type Harness } from '../support/spoor-harness.js';

for (const mode of MODES) {
  describe(`The install's first account is its operator: ${mode}`, function () {
    this.timeout(120_000);
    let spoor: Harness;
    let first: ApiClient;
    let second: ApiClient;
    const firstEmail = `first-${Date.now()}@example.com`;

    before(async function () {
      const started = await startSpoor(mode);
      requireEngine(this, started ? 'ok' : null, `engines for ${mode} mode`);
      spoor = started!;
      first = await signUp(spoor.url, firstEmail);
      second = await signUp(spoor.url);
    });

    after(async () => {
      await spoor?.stop();
    });

    it('lets the first account read health and make operator keys at once, and no later account', async () => {
      expect((await first.get('/v1/status/health')).status).to.equal(200);
      const denied = await second.get('/v1/status/health');
      expect(denied.status).to.equal(403);
      expect(denied.body.detail).to.match(/first account/);
      const key = await first.post('/v1/users/apikey', { api_key_name: 'ops', scope: 'operator' });
      expect(key.status).to.equal(200);
      expect((await first.withToken(key.body.api_key).get('/v1/status/health')).status).to.equal(200);
      const full = await first.post('/v1/users/apikey', { api_key_name: 'full' });
      expect((await first.withToken(full.body.api_key).get('/v1/status/health')).status, 'a full key').to.equal(403);
      expect((await second.post('/v1/users/apikey', { api_key_name: 'ops', scope: 'operator' })).status).to.equal(403);
    });

    it('passes the power to nobody when the first account is deleted', async () => {
      expect((await first.delete('/v1/users/account', { confirm: firstEmail })).status).to.be.oneOf([200, 202]);
      const third = await signUp(spoor.url);
      for (const client of [second, third]) expect((await client.get('/v1/status/health')).status).to.equal(403);
    });
  });
}
