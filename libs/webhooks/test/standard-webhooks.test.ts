import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import {
  decodeWebhookSecret,
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
  webhookHeaders,
} from '../src/index.js';

describe('Standard Webhooks signatures', function () {
  // The example of the Standard Webhooks specification.
  const SPEC = {
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    ts: 1614265330,
    body: '{"test": 2432232314}',
  };

  it('signs the specification example to its published signature', function () {
    expect(signWebhook(SPEC.secret, SPEC.id, SPEC.ts, SPEC.body)).to.equal(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('signs HMAC-SHA256 of id.timestamp.body with the decoded key', function () {
    const secret = generateWebhookSecret(32);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update('m1.1700000000.{"a":1}').digest('base64');
    expect(webhookHeaders(secret, 'm1', 1700000000, '{"a":1}')).to.deep.equal({
      'webhook-id': 'm1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': `v1,${expected}`,
    });
  });

  it('makes secrets of 24 to 64 bytes only', function () {
    expect(decodeWebhookSecret(generateWebhookSecret(24))).to.have.length(24);
    expect(decodeWebhookSecret(generateWebhookSecret(64))).to.have.length(64);
    expect(() => generateWebhookSecret(23)).to.throw(RangeError);
    expect(() => generateWebhookSecret(65)).to.throw(RangeError);
    expect(() => decodeWebhookSecret('whsec_c2hvcnQ=')).to.throw(RangeError);
  });

  it('verifies a genuine message and refuses tampering, a wrong key, an old timestamp and junk', function () {
    const secret = generateWebhookSecret();
    const now = 1_700_000_000_000;
    const ts = now / 1000;
    const headers = webhookHeaders(secret, 'msg_1', ts, '{"ok":true}');
    expect(verifyWebhook(secret, headers, '{"ok":true}', { now })).to.equal(true);
    expect(
      verifyWebhook(
        secret,
        { ...headers, 'webhook-signature': `v1,bm9wZQ== ${headers['webhook-signature']}` },
        '{"ok":true}',
        { now },
      ),
      'one of several',
    ).to.equal(true);
    expect(verifyWebhook(secret, headers, '{"ok":false}', { now }), 'tampered body').to.equal(false);
    expect(verifyWebhook(generateWebhookSecret(), headers, '{"ok":true}', { now }), 'wrong secret').to.equal(false);
    expect(verifyWebhook(secret, headers, '{"ok":true}', { now: now + 301_000 }), 'replayed late').to.equal(false);
    expect(verifyWebhook(secret, { ...headers, 'webhook-id': 'msg_2' }, '{"ok":true}', { now }), 'other id').to.equal(
      false,
    );
    expect(verifyWebhook(secret, { ...headers, 'webhook-signature': 'v2,abc' }, '{"ok":true}', { now })).to.equal(
      false,
    );
    expect(verifyWebhook(secret, {}, '{"ok":true}', { now })).to.equal(false);
  });
});
