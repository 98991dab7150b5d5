import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { requireEngine, tlsRedis, type TestPki } from '@spoor/testkit';
import { RedisKv } from '../src/index.js';

// Issue 46: managed Redis listens on TLS only (rediss://), often with a private CA. The KV must
// work through it, and an untrusted certificate must fail the start at once, naming the setting,
// rather than leave ioredis reconnecting behind a rejected connect().
describe('RedisKv over TLS', function () {
  this.timeout(60_000);
  let pki: TestPki;
  let url: string;

  before(async function () {
    const server = await tlsRedis();
    requireEngine(this, server?.url ?? null, 'redis');
    url = server!.url;
    pki = server!.pki;
  });

  it('sets and gets through a rediss:// URL with the CA', async () => {
    const kv = await RedisKv.connect(url, 'tls-test:', { ca: pki.ca });
    try {
      await kv.set('k', 'v', 10_000);
      expect(await kv.get('k')).to.equal('v');
    } finally {
      await kv.close();
    }
  });

  it('presents a client certificate when given one', async () => {
    const kv = await RedisKv.connect(url, 'tls-test:', { ca: pki.ca, cert: pki.client.cert, key: pki.client.key });
    try {
      expect(await kv.setIfAbsent('mtls', '1', 10_000)).to.equal(true);
    } finally {
      await kv.close();
    }
  });

  for (const [label, tls] of [
    ['a CA that did not sign its certificate', () => ({ ca: readFileSync(pki.otherCaFile, 'utf8') })],
    ["the system's CAs alone", () => ({})],
  ] as const) {
    it(`fails at once with ${label}, naming SPOOR_REDIS_TLS_CA_FILE`, async () => {
      const started = Date.now();
      const error = await RedisKv.connect(url, 'tls-test:', tls()).then(
        () => null,
        (err: unknown) => err as Error,
      );
      const took = Date.now() - started;
      expect(error?.message).to.match(/certificate is not trusted.*SPOOR_REDIS_TLS_CA_FILE/);
      expect(took).to.be.below(5_000);
      process.stderr.write(`      (failed in ${took} ms: ${error?.message})\n`);
    });
  }
});
