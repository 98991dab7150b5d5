import { expect } from 'chai';
import { dnsServer, makeTempDir, requireEngine } from '@spoor/testkit';
import { ApiClient } from '../support/api-client.js';
import { startSpoor } from '../support/spoor-harness.js';

/**
 * A project on a public origin proves its domain with a TXT record, looked up through
 * SPOOR_DNS_SERVER: here a real DNS server (dnsmasq) on loopback that the test starts.
 */
describe('Project domain verification through DNS', function () {
  this.timeout(90_000);

  it('keeps raw events closed until the TXT record is found, then opens them', async function () {
    const dataDir = await makeTempDir('verify');
    const scope = { origin: 'https://shop.example.com', project: 'shop/web' };
    const email = 'owner@example.com';
    const password = 'verify-me-please';

    // Register first: the record's value is only known once the server made the token.
    let spoor = await startSpoor('embedded', { SPOOR_DATA_DIR: dataDir });
    requireEngine(this, spoor ? 'ok' : null, 'embedded mode');
    let api = new ApiClient(
      spoor!.url,
      (await new ApiClient(spoor!.url).post('/v1/auth/signup', { email, password })).body.id_token,
    );
    const registered = await api.post('/v1/users/projects', scope);
    expect(registered.body.verified).to.equal(false);
    expect(registered.body.verification.name).to.equal('_spoor.shop.example.com');
    expect((await api.get('/v1/events', scope)).status).to.equal(403);
    await spoor!.stop();

    const wrong = await dnsServer([{ name: '_spoor.shop.example.com', value: 'spoor-verify=somebody-else' }]);
    requireEngine(this, wrong ? 'ok' : null, 'dnsmasq');
    spoor = await startSpoor('embedded', { SPOOR_DATA_DIR: dataDir, SPOOR_DNS_SERVER: wrong!.server });
    api = new ApiClient(
      spoor!.url,
      (await new ApiClient(spoor!.url).post('/v1/auth/login', { email, password })).body.id_token,
    );
    const refused = await api.post('/v1/users/projects/verify', scope);
    expect(refused.status).to.equal(200);
    expect(refused.body.verified).to.equal(false);
    expect(refused.body.reason).to.be.a('string');
    expect((await api.get('/v1/events', scope)).status).to.equal(403);
    await spoor!.stop();
    await wrong!.stop();

    const right = await dnsServer([
      { name: registered.body.verification.name, value: registered.body.verification.value },
    ]);
    spoor = await startSpoor('embedded', { SPOOR_DATA_DIR: dataDir, SPOOR_DNS_SERVER: right!.server });
    try {
      api = new ApiClient(
        spoor!.url,
        (await new ApiClient(spoor!.url).post('/v1/auth/login', { email, password })).body.id_token,
      );
      const verified = await api.post('/v1/users/projects/verify', scope);
      expect(verified.body.verified).to.equal(true);
      expect((await api.get('/v1/events', scope)).status).to.equal(200);
      expect((await api.get('/v1/events/enriched', scope)).status).to.equal(200);
      expect((await api.get('/v1/projects')).body.projects[0]).to.include({ origin: scope.origin, verified: true });
    } finally {
      await spoor!.stop();
      await right!.stop();
    }
  });
});
