import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { requireEngine, tlsClickHouse, type TestPki } from '@spoor/testkit';
import { openStore, type Store } from '../src/index.js';

// Issue 46: ClickHouse Cloud and operator-run servers answer on https, often under a private CA.
// The stand-in behind a TLS-terminating proxy (libs/testkit tls-proxy.ts) tests the client side:
// the store migrates, writes and reads through it, and an untrusted certificate fails the start
// with the setting to fix.
describe('ClickHouse store over https', function () {
  this.timeout(120_000);
  let pki: TestPki;
  let url: string;
  const stores: Store[] = [];

  before(async function () {
    const proxy = await tlsClickHouse();
    requireEngine(this, proxy?.url ?? null, 'clickhouse');
    url = proxy!.url;
    pki = proxy!.pki;
  });
  after(async () => {
    await Promise.all(stores.map((s) => s.close()));
  });

  const database = () => `spoor_tls_${randomUUID().replace(/-/g, '').slice(0, 10)}`;

  it('migrates, writes and reads with the CA and a client certificate', async () => {
    const { cert, key } = pki.client;
    const store = await openStore({ kind: 'clickhouse', url, database: database(), tls: { ca: pki.ca, cert, key } });
    stores.push(store);
    await store.migrate();
    const project = {
      project_id: randomUUID(),
      origin: 'https://tls.example',
      project: 'tls',
      account_id: 'acct-tls',
      verified: false,
      verification_token: randomUUID(),
      created_at: Date.now(),
    };
    await store.projects.create(project);
    expect(await store.projects.get(project.project_id)).to.include({ origin: 'https://tls.example', project: 'tls' });
  });

  it('verifies the hostname: a certificate from the right CA for another name fails, naming the setting', async function () {
    const wrongName = await tlsClickHouse(pki, pki.wrongNameServer);
    requireEngine(this, wrongName?.url ?? null, 'clickhouse');
    const error = await openStore({
      kind: 'clickhouse',
      url: wrongName!.url,
      database: database(),
      tls: { ca: pki.ca },
    }).then(
      (s) => (stores.push(s), null),
      (err: unknown) => err as Error,
    );
    expect(error?.message).to.match(
      /ERR_TLS_CERT_ALTNAME_INVALID.*SPOOR_CLICKHOUSE_TLS_CA_FILE \/ SPOOR_CLICKHOUSE_URL/,
    );
    process.stderr.write(`      (${error?.message})\n`);
  });

  for (const [label, tls] of [
    ['a CA that did not sign its certificate', () => ({ ca: readFileSync(pki.otherCaFile, 'utf8') })],
    ["the system's CAs alone", () => ({})],
  ] as const) {
    it(`fails at start with ${label}, naming SPOOR_CLICKHOUSE_TLS_CA_FILE`, async () => {
      const started = Date.now();
      const error = await openStore({ kind: 'clickhouse', url, database: database(), tls: tls() }).then(
        (s) => (stores.push(s), null),
        (err: unknown) => err as Error,
      );
      const took = Date.now() - started;
      expect(error?.message).to.match(/certificate is not trusted.*SPOOR_CLICKHOUSE_TLS_CA_FILE/);
      expect(took).to.be.below(5_000);
      process.stderr.write(`      (failed in ${took} ms: ${error?.message})\n`);
    });
  }
});
