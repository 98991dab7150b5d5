import { expect } from 'chai';
import { explainAccessFailure, kafkaSecurity, type KafkaAccess } from '../src/kafka/kafka-access.js';

// Issue 46: which first-connection failures end the start at once (a setting is wrong) and which
// are left to the bus' retries (the broker is away), as kafkajs 2.2.4 reports them: the socket's
// error wrapped in KafkaJSConnectionError, wrapped again in KafkaJSNumberOfRetriesExceeded.
describe('Kafka access check: what a failed first connection says', () => {
  const failure = (name: string, message: string, code?: string): Error => {
    const inner = Object.assign(new Error(message), { name, ...(code ? { code } : {}) });
    return Object.assign(new Error(message, { cause: inner }), { name: 'KafkaJSNumberOfRetriesExceeded' });
  };
  const plain: KafkaAccess = { brokers: ['k:9093'] };
  const tls: KafkaAccess = { brokers: ['k:9093'], tls: { ca: 'pem' } };
  const sasl: KafkaAccess = { ...tls, sasl: { mechanism: 'scram-sha-512', username: 'u', password: 'p' } };

  // [access, error, what the message must say (null: left to the retries)]
  const cases: Array<[string, KafkaAccess, Error, RegExp | null]> = [
    [
      'SASL refused',
      sasl,
      Object.assign(new Error('SASL SCRAM SHA512 authentication failed'), { name: 'KafkaJSSASLAuthenticationError' }),
      /refused the SASL credentials \(scram-sha-512\).*\(SPOOR_KAFKA_SASL_USERNAME \/ SPOOR_KAFKA_SASL_PASSWORD \/ SPOOR_KAFKA_SASL_PASSWORD_FILE\)$/,
    ],
    [
      'untrusted certificate',
      tls,
      failure(
        'KafkaJSConnectionError',
        'Connection error: unable to verify the first certificate',
        'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      ),
      /not trusted.*\(SPOOR_KAFKA_TLS_CA_FILE \/ SPOOR_KAFKA_BROKERS\)$/,
    ],
    [
      'hostname not in the certificate',
      tls,
      failure(
        'KafkaJSConnectionError',
        "Hostname/IP does not match certificate's altnames",
        'ERR_TLS_CERT_ALTNAME_INVALID',
      ),
      /not trusted.*SPOOR_KAFKA_TLS_CA_FILE \/ SPOOR_KAFKA_BROKERS/,
    ],
    [
      'plaintext client, TLS listener',
      plain,
      failure('KafkaJSConnectionClosedError', 'Closed connection'),
      /probably requires TLS.*\(SPOOR_KAFKA_TLS \/ SPOOR_KAFKA_SASL_MECHANISM\)$/,
    ],
    [
      'TLS client, plaintext listener',
      tls,
      failure(
        'KafkaJSConnectionError',
        'Connection error: Client network socket disconnected before secure TLS connection was established',
        'ECONNRESET',
      ),
      /does not speak TLS.*\(SPOOR_KAFKA_TLS \/ SPOOR_KAFKA_BROKERS\)$/,
    ],
    [
      'client certificate refused',
      tls,
      failure('KafkaJSConnectionError', 'sslv3 alert bad certificate', 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE'),
      /\(SPOOR_KAFKA_TLS_CERT_FILE \/ SPOOR_KAFKA_TLS_KEY_FILE\)$/,
    ],
    [
      'SASL listener, no SASL',
      tls,
      failure('KafkaJSConnectionClosedError', 'Closed connection'),
      /probably requires SASL \(SPOOR_KAFKA_SASL_MECHANISM\)$/,
    ],
    [
      'broker away: refused',
      plain,
      failure('KafkaJSConnectionError', 'Connection error: connect ECONNREFUSED', 'ECONNREFUSED'),
      null,
    ],
    ['broker away: timeout', tls, failure('KafkaJSConnectionError', 'Connection timeout'), null],
  ];
  for (const [label, access, error, expected] of cases) {
    it(`${label}: ${expected ? 'fails at once, naming the settings' : 'left to the retries'}`, () => {
      const explained = explainAccessFailure(error, access);
      if (expected === null) expect(explained).to.equal(null);
      else expect(explained?.message).to.match(expected);
    });
  }

  it('always verifies the certificate, and gives kafkajs the CA and client certificate', () => {
    expect(kafkaSecurity(plain)).to.deep.equal({});
    expect(kafkaSecurity({ brokers: ['k:1'], tls: {} }).ssl).to.deep.equal({ rejectUnauthorized: true });
    expect(kafkaSecurity({ brokers: ['k:1'], tls: { ca: 'CA', cert: 'C', key: 'K' } }).ssl).to.deep.equal({
      rejectUnauthorized: true,
      ca: ['CA'],
      cert: 'C',
      key: 'K',
    });
    expect(kafkaSecurity(sasl).sasl).to.deep.equal({ mechanism: 'scram-sha-512', username: 'u', password: 'p' });
  });
});
