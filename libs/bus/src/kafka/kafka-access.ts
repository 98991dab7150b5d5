import type { ConnectionOptions } from 'node:tls';
import { tlsFailureOf } from '@spoor/config';
import { Kafka, logLevel, type KafkaConfig, type SASLOptions } from 'kafkajs';

/** PEM text (SPOOR_KAFKA_TLS_*_FILE); no `ca`: the system's CAs. */
export interface KafkaTls {
  ca?: string;
  cert?: string;
  key?: string;
}

/** SPOOR_KAFKA_SASL_*. */
export interface KafkaSasl {
  mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  username: string;
  password: string;
}

export interface KafkaAccess {
  brokers: string[];
  /** Null or unset: plaintext. */
  tls?: KafkaTls | null | undefined;
  /** Null or unset: no SASL. */
  sasl?: KafkaSasl | null | undefined;
}

/** kafkajs' `ssl` and `sasl`: the certificate and its hostname always verified (issue 46). */
export function kafkaSecurity(access: KafkaAccess): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  const { tls, sasl } = access;
  const ssl: ConnectionOptions | undefined = tls
    ? {
        rejectUnauthorized: true,
        ...(tls.ca !== undefined ? { ca: [tls.ca] } : {}),
        ...(tls.cert !== undefined ? { cert: tls.cert, key: tls.key } : {}),
      }
    : undefined;
  return {
    ...(ssl ? { ssl } : {}),
    ...(sasl
      ? { sasl: { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password } as SASLOptions }
      : {}),
  };
}

/** Kafka refused this process for a reason retrying does not cure: a setting is wrong. */
export class KafkaAccessError extends Error {
  constructor(
    message: string,
    /** The settings to look at. */
    readonly settings: string[],
    options?: ErrorOptions,
  ) {
    super(`${message} (${settings.join(' / ')})`, options);
    this.name = 'KafkaAccessError';
  }
}

/** The codes and names along an error's chain (kafkajs wraps the socket's error, sometimes twice). */
function chainOf(err: unknown): Array<{ name: string; code: string; message: string }> {
  const out = [];
  for (let e = err as (Error & { code?: unknown; cause?: unknown; originalError?: unknown }) | undefined; e;) {
    out.push({ name: String(e.name ?? ''), code: String(e.code ?? ''), message: String(e.message ?? '') });
    const next = e.originalError ?? e.cause;
    e = next instanceof Error ? (next as typeof e) : undefined;
    if (out.length > 8) break;
  }
  return out;
}

const SASL_SETTINGS = ['SPOOR_KAFKA_SASL_USERNAME', 'SPOOR_KAFKA_SASL_PASSWORD', 'SPOOR_KAFKA_SASL_PASSWORD_FILE'];

/**
 * What a failed first connection says about the settings, or null when it may be the broker's
 * passing state (refused, unreachable, timed out): that is left to the bus' own retries.
 */
export function explainAccessFailure(err: unknown, access: KafkaAccess): KafkaAccessError | null {
  const chain = chainOf(err);
  const at = access.brokers.join(',');
  const has = (test: (e: { name: string; code: string; message: string }) => boolean) => chain.find(test);
  const sasl = has((e) => e.name === 'KafkaJSSASLAuthenticationError');
  if (sasl) {
    const mechanism = access.sasl?.mechanism ?? 'none';
    return new KafkaAccessError(
      `Kafka at ${at} refused the SASL credentials (${mechanism}): ${sasl.message}`,
      SASL_SETTINGS,
      {
        cause: err,
      },
    );
  }
  const untrusted = has((e) => tlsFailureOf(e.code, e.message) === 'untrusted');
  if (untrusted) {
    return new KafkaAccessError(
      `Kafka's certificate at ${at} is not trusted: ${untrusted.message} [${untrusted.code}]; give the CA that signed it, and connect by a name the certificate holds`,
      ['SPOOR_KAFKA_TLS_CA_FILE', 'SPOOR_KAFKA_BROKERS'],
      { cause: err },
    );
  }
  // A plaintext listener reads the ClientHello as a request and closes the connection.
  if (access.tls && has((e) => /before secure TLS connection was established/.test(e.message))) {
    return new KafkaAccessError(
      `Kafka at ${at} closed the connection during the TLS handshake: this listener probably does not speak TLS, but SPOOR_KAFKA_TLS is on`,
      ['SPOOR_KAFKA_TLS', 'SPOOR_KAFKA_BROKERS'],
    );
  }
  const handshake = has((e) => e.code.startsWith('ERR_SSL_'));
  if (handshake) {
    const wrongVersion = /WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|HTTP_REQUEST/.test(handshake.code);
    if (wrongVersion) {
      return new KafkaAccessError(`Kafka at ${at} does not speak TLS on this listener, but SPOOR_KAFKA_TLS is on`, [
        'SPOOR_KAFKA_TLS',
        'SPOOR_KAFKA_BROKERS',
      ]);
    }
    return new KafkaAccessError(
      `Kafka at ${at} ended the TLS handshake: ${handshake.message.split('\n')[0]} [${handshake.code}]; a listener that requires a client certificate needs one it trusts`,
      ['SPOOR_KAFKA_TLS_CERT_FILE', 'SPOOR_KAFKA_TLS_KEY_FILE'],
      { cause: err },
    );
  }
  // Accepted, then closed before any answer: the listener wants what the client did not
  // offer (a TLS handshake, then a SASL one). A broker that is away refuses the connection.
  if (has((e) => e.name === 'KafkaJSConnectionClosedError' || /^Closed connection/.test(e.message))) {
    if (!access.tls) {
      return new KafkaAccessError(
        `Kafka at ${at} closed the connection before answering: its listener probably requires TLS (SPOOR_KAFKA_TLS=true), and perhaps SASL`,
        ['SPOOR_KAFKA_TLS', 'SPOOR_KAFKA_SASL_MECHANISM'],
      );
    }
    return new KafkaAccessError(
      `Kafka at ${at} closed the TLS connection before answering: its listener probably requires SASL${access.sasl ? ` with another mechanism than ${access.sasl.mechanism}` : ''}`,
      ['SPOOR_KAFKA_SASL_MECHANISM'],
    );
  }
  return null;
}

/**
 * One connection as the bus will make them, tried a few times within about a second: a wrong
 * password, an untrusted certificate or a plaintext client against a TLS listener fail here with
 * the setting to fix, instead of after the bus' retries (or never, in a consumer's reconnects).
 */
export async function checkKafkaAccess(access: KafkaAccess): Promise<void> {
  // kafkajs' own connection timeout (1 s), as the bus has.
  const probe = new Kafka({
    clientId: 'spoor-access-check',
    brokers: access.brokers,
    logLevel: logLevel.NOTHING,
    ...kafkaSecurity(access),
    retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 500 },
  }).admin();
  try {
    await probe.connect();
    // A request beyond the handshake: a SASL listener answers ApiVersions before authentication.
    await probe.describeCluster();
  } catch (err) {
    const explained = explainAccessFailure(err, access);
    if (explained) throw explained;
  } finally {
    await probe.disconnect().catch(() => undefined);
  }
}
