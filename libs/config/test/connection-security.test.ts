import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../src/index.js';

// Issue 46: TLS and SASL of the engines' connections. The files are read once, at start; every
// wrong combination stops the start with a ConfigError naming the variable to fix.
describe('loadConfig: secure connections', () => {
  let dir: string;
  const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  const KEY = '-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----\n';
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const kafka = { SPOOR_KAFKA_BROKERS: 'kafka.example:9093' };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'spoor-config-tls-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves every connection plaintext by default', () => {
    expect(
      loadConfig({ ...kafka, SPOOR_CLICKHOUSE_URL: 'http://ch:8123', SPOOR_REDIS_URL: 'redis://r:6379' }),
    ).to.include({
      kafkaTls: null,
      kafkaSasl: null,
      clickhouseTls: null,
      redisTls: null,
    });
  });

  it('reads Kafka TLS files and SASL, the password from a variable or from a file', () => {
    const c = loadConfig({
      ...kafka,
      SPOOR_KAFKA_TLS: 'true',
      SPOOR_KAFKA_TLS_CA_FILE: file('ca.pem', CERT),
      SPOOR_KAFKA_TLS_CERT_FILE: file('client.pem', CERT),
      SPOOR_KAFKA_TLS_KEY_FILE: file('client.key', KEY),
      SPOOR_KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
      SPOOR_KAFKA_SASL_USERNAME: 'spoor',
      SPOOR_KAFKA_SASL_PASSWORD_FILE: file('password', 's3cret\n'),
    });
    expect(c.kafkaTls).to.deep.equal({ ca: CERT, cert: CERT, key: KEY });
    expect(c.kafkaSasl).to.deep.equal({ mechanism: 'scram-sha-512', username: 'spoor', password: 's3cret' });
    const inline = loadConfig({
      ...kafka,
      SPOOR_KAFKA_SASL_MECHANISM: 'plain',
      SPOOR_KAFKA_SASL_USERNAME: 'spoor',
      SPOOR_KAFKA_SASL_PASSWORD: 'pw',
    });
    expect(inline.kafkaSasl).to.deep.equal({ mechanism: 'plain', username: 'spoor', password: 'pw' });
    // TLS with the system's CAs: no file at all.
    expect(loadConfig({ ...kafka, SPOOR_KAFKA_TLS: 'on' }).kafkaTls).to.deep.equal({});
  });

  it('turns TLS on for https:// ClickHouse and rediss:// Redis, with their files', () => {
    const c = loadConfig({
      SPOOR_CLICKHOUSE_URL: 'https://ch:8443',
      SPOOR_CLICKHOUSE_TLS_CA_FILE: file('ch-ca.pem', CERT),
      SPOOR_REDIS_URL: 'rediss://r:6380',
      SPOOR_REDIS_TLS_CA_FILE: file('r-ca.pem', CERT),
      SPOOR_REDIS_TLS_CERT_FILE: file('r.pem', CERT),
      SPOOR_REDIS_TLS_KEY_FILE: file('r.key', KEY),
    });
    expect(c.clickhouseTls).to.deep.equal({ ca: CERT });
    expect(c.redisTls).to.deep.equal({ ca: CERT, cert: CERT, key: KEY });
    expect(loadConfig({ SPOOR_REDIS_URL: 'rediss://r:6380' }).redisTls).to.deep.equal({});
  });

  // [environment, the variable the error names, what its message says]
  const cases: Array<[Record<string, string>, string, RegExp]> = [
    [{ SPOOR_KAFKA_TLS_CA_FILE: 'ca.pem' }, 'SPOOR_KAFKA_TLS_CA_FILE', /SPOOR_KAFKA_TLS=true/],
    [{ SPOOR_KAFKA_TLS: 'yes please' }, 'SPOOR_KAFKA_TLS', /true or false/],
    [
      { SPOOR_KAFKA_TLS: '1', SPOOR_KAFKA_TLS_CA_FILE: '/nonexistent/ca.pem' },
      'SPOOR_KAFKA_TLS_CA_FILE',
      /cannot read the file \(ENOENT\)/,
    ],
    [{ SPOOR_KAFKA_TLS: '1', SPOOR_KAFKA_TLS_CA_FILE: 'key.pem' }, 'SPOOR_KAFKA_TLS_CA_FILE', /no PEM certificate/],
    [
      { SPOOR_KAFKA_TLS: '1', SPOOR_KAFKA_TLS_CERT_FILE: 'cert.pem' },
      'SPOOR_KAFKA_TLS_KEY_FILE',
      /required with SPOOR_KAFKA_TLS_CERT_FILE/,
    ],
    [
      { SPOOR_KAFKA_TLS: '1', SPOOR_KAFKA_TLS_KEY_FILE: 'key.pem' },
      'SPOOR_KAFKA_TLS_CERT_FILE',
      /required with SPOOR_KAFKA_TLS_KEY_FILE/,
    ],
    [
      { SPOOR_KAFKA_TLS: '1', SPOOR_KAFKA_TLS_CERT_FILE: 'cert.pem', SPOOR_KAFKA_TLS_KEY_FILE: 'cert.pem' },
      'SPOOR_KAFKA_TLS_KEY_FILE',
      /no PEM private key/,
    ],
    [{ SPOOR_KAFKA_SASL_MECHANISM: 'gssapi' }, 'SPOOR_KAFKA_SASL_MECHANISM', /plain|scram/],
    [
      { SPOOR_KAFKA_SASL_USERNAME: 'u', SPOOR_KAFKA_SASL_PASSWORD: 'p' },
      'SPOOR_KAFKA_SASL_MECHANISM',
      /required with SPOOR_KAFKA_SASL_USERNAME/,
    ],
    [{ SPOOR_KAFKA_SASL_MECHANISM: 'plain', SPOOR_KAFKA_SASL_PASSWORD: 'p' }, 'SPOOR_KAFKA_SASL_USERNAME', /required/],
    [
      { SPOOR_KAFKA_SASL_MECHANISM: 'plain', SPOOR_KAFKA_SASL_USERNAME: 'u' },
      'SPOOR_KAFKA_SASL_PASSWORD',
      /a password is required/,
    ],
    [
      {
        SPOOR_KAFKA_SASL_MECHANISM: 'plain',
        SPOOR_KAFKA_SASL_USERNAME: 'u',
        SPOOR_KAFKA_SASL_PASSWORD: 'p',
        SPOOR_KAFKA_SASL_PASSWORD_FILE: 'password',
      },
      'SPOOR_KAFKA_SASL_PASSWORD_FILE',
      /not both/,
    ],
    [
      { SPOOR_KAFKA_SASL_MECHANISM: 'plain', SPOOR_KAFKA_SASL_USERNAME: 'u', SPOOR_KAFKA_SASL_PASSWORD_FILE: 'empty' },
      'SPOOR_KAFKA_SASL_PASSWORD_FILE',
      /a password is required/,
    ],
    [
      { SPOOR_CLICKHOUSE_URL: 'http://ch:8123', SPOOR_CLICKHOUSE_TLS_CA_FILE: 'ca.pem' },
      'SPOOR_CLICKHOUSE_TLS_CA_FILE',
      /https:\/\//,
    ],
    [
      {
        SPOOR_CLICKHOUSE_URL: 'https://ch:8443',
        SPOOR_CLICKHOUSE_TLS_CERT_FILE: 'cert.pem',
        SPOOR_CLICKHOUSE_TLS_KEY_FILE: 'key.pem',
      },
      'SPOOR_CLICKHOUSE_TLS_CA_FILE',
      /required with SPOOR_CLICKHOUSE_TLS_CERT_FILE/,
    ],
    [
      { SPOOR_REDIS_URL: 'redis://r:6379', SPOOR_REDIS_TLS_CA_FILE: 'ca.pem' },
      'SPOOR_REDIS_TLS_CA_FILE',
      /rediss:\/\//,
    ],
  ];
  for (const [env, variable, detail] of cases) {
    it(`names ${variable} for ${JSON.stringify(env)}`, () => {
      const paths: Record<string, string> = {
        'ca.pem': file('ca.pem', CERT),
        'cert.pem': file('cert.pem', CERT),
        'key.pem': file('key.pem', KEY),
        password: file('password', 'pw'),
        empty: file('empty', '\n'),
      };
      const resolved = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, paths[v] ?? v]));
      let error: unknown = null;
      try {
        loadConfig({ ...kafka, ...resolved });
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as ConfigError).variable).to.equal(variable);
      expect((error as Error).message).to.match(detail);
    });
  }

  it('shows a file variable’s path in its error, but never an inline password', () => {
    expect(() =>
      loadConfig({
        ...kafka,
        SPOOR_KAFKA_TLS: '1',
        SPOOR_KAFKA_TLS_KEY_FILE: '/run/k.pem',
        SPOOR_KAFKA_TLS_CERT_FILE: '/run/c.pem',
      }),
    )
      .to.throw(ConfigError)
      .with.property('message')
      .that.contains('"/run/c.pem"');
    expect(() =>
      loadConfig({
        ...kafka,
        SPOOR_KAFKA_SASL_MECHANISM: 'plain',
        SPOOR_KAFKA_SASL_USERNAME: 'u',
        SPOOR_KAFKA_SASL_PASSWORD: 'hunter2',
        SPOOR_KAFKA_SASL_PASSWORD_FILE: '/run/pw',
      }),
    )
      .to.throw(ConfigError)
      .with.property('message')
      .that.does.not.contain('hunter2');
  });
});
