import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { ConfigError } from './config-error.js';
import type { ConfigSchema } from './config-schema.js';

type Parsed = z.output<typeof ConfigSchema>;
type Env = Record<string, string | undefined>;

/**
 * PEM text for one TLS connection (issue 46). No `ca`: the system's CAs; no `cert`/`key`: no
 * client certificate. Hostnames are always verified against the server's certificate.
 */
export interface TlsFiles {
  ca?: string;
  cert?: string;
  key?: string;
}

export type SaslMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512';

export interface KafkaSasl {
  mechanism: SaslMechanism;
  username: string;
  password: string;
}

/** TLS and SASL of the engines' connections; null: plaintext (and no SASL). */
export interface ConnectionSecurity {
  /** SPOOR_KAFKA_TLS and its files. */
  kafkaTls: TlsFiles | null;
  /** SPOOR_KAFKA_SASL_*. */
  kafkaSasl: KafkaSasl | null;
  /** An https:// SPOOR_CLICKHOUSE_URL, with SPOOR_CLICKHOUSE_TLS_*. */
  clickhouseTls: TlsFiles | null;
  /** A rediss:// SPOOR_REDIS_URL, with SPOOR_REDIS_TLS_*. */
  redisTls: TlsFiles | null;
}

/**
 * The files the settings name are read here, once, at start: a missing or unreadable one, or one
 * that is not PEM, stops start-up with a ConfigError naming its variable rather than a TLS error
 * at the first connection.
 */
export function readConnectionSecurity(p: Parsed, env: Env): ConnectionSecurity {
  const kafkaFiles = tlsFiles('SPOOR_KAFKA_TLS', p);
  if (kafkaFiles.named && !p.SPOOR_KAFKA_TLS) {
    throw new ConfigError(
      kafkaFiles.named,
      'set SPOOR_KAFKA_TLS=true as well: the file is used only over TLS',
      env[kafkaFiles.named],
    );
  }
  const clickhouseFiles = tlsFiles('SPOOR_CLICKHOUSE_TLS', p);
  const clickhouseHttps = p.SPOOR_CLICKHOUSE_URL?.startsWith('https:') ?? false;
  if (clickhouseFiles.named && !clickhouseHttps) {
    throw new ConfigError(clickhouseFiles.named, 'needs an https:// SPOOR_CLICKHOUSE_URL', env[clickhouseFiles.named]);
  }
  const redisFiles = tlsFiles('SPOOR_REDIS_TLS', p);
  const redisTls = p.SPOOR_REDIS_URL?.startsWith('rediss:') ?? false;
  if (redisFiles.named && !redisTls) {
    throw new ConfigError(redisFiles.named, 'needs a rediss:// SPOOR_REDIS_URL', env[redisFiles.named]);
  }
  // @clickhouse/client takes a client certificate only beside a CA.
  if (clickhouseFiles.files.cert !== undefined && clickhouseFiles.files.ca === undefined) {
    throw new ConfigError('SPOOR_CLICKHOUSE_TLS_CA_FILE', 'required with SPOOR_CLICKHOUSE_TLS_CERT_FILE', '');
  }
  return {
    kafkaTls: p.SPOOR_KAFKA_TLS ? kafkaFiles.files : null,
    kafkaSasl: kafkaSasl(p, env),
    clickhouseTls: clickhouseHttps ? clickhouseFiles.files : null,
    redisTls: redisTls ? redisFiles.files : null,
  };
}

type TlsPrefix = 'SPOOR_KAFKA_TLS' | 'SPOOR_CLICKHOUSE_TLS' | 'SPOOR_REDIS_TLS';

/** `<prefix>_CA_FILE`, `_CERT_FILE`, `_KEY_FILE` read; `named`: the first one set, if any. */
function tlsFiles(prefix: TlsPrefix, p: Parsed): { files: TlsFiles; named: string | null } {
  const names = { ca: `${prefix}_CA_FILE`, cert: `${prefix}_CERT_FILE`, key: `${prefix}_KEY_FILE` } as const;
  const path = (name: string) => p[name as keyof Parsed] as string | undefined;
  const [ca, cert, key] = [path(names.ca), path(names.cert), path(names.key)];
  // A client certificate is useless without its key, and the other way round.
  if (cert !== undefined && key === undefined) throw new ConfigError(names.key, `required with ${names.cert}`, '');
  if (key !== undefined && cert === undefined) throw new ConfigError(names.cert, `required with ${names.key}`, '');
  const files: TlsFiles = {};
  if (ca !== undefined) files.ca = readPem(names.ca, ca, 'CERTIFICATE');
  if (cert !== undefined) files.cert = readPem(names.cert, cert, 'CERTIFICATE');
  if (key !== undefined) files.key = readPem(names.key, key, 'PRIVATE KEY');
  return { files, named: [names.ca, names.cert, names.key].find((n) => path(n) !== undefined) ?? null };
}

function readPem(variable: string, path: string, label: 'CERTIFICATE' | 'PRIVATE KEY'): string {
  const text = readSetting(variable, path);
  if (!new RegExp(`-----BEGIN [A-Z ]*${label}-----`).test(text)) {
    throw new ConfigError(variable, `${path} holds no PEM ${label.toLowerCase()} ("-----BEGIN …${label}-----")`, path);
  }
  return text;
}

function readSetting(variable: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException;
    throw new ConfigError(variable, `cannot read the file (${code ?? message})`, path);
  }
}

/**
 * SASL needs all three of mechanism, user name and password. The password comes from
 * SPOOR_KAFKA_SASL_PASSWORD or from the file SPOOR_KAFKA_SASL_PASSWORD_FILE (a mounted secret),
 * never both: which one wins would be a guess.
 */
function kafkaSasl(p: Parsed, env: Env): KafkaSasl | null {
  const mechanism = p.SPOOR_KAFKA_SASL_MECHANISM;
  const username = p.SPOOR_KAFKA_SASL_USERNAME;
  const [inline, file] = [p.SPOOR_KAFKA_SASL_PASSWORD, p.SPOOR_KAFKA_SASL_PASSWORD_FILE];
  if (inline !== undefined && file !== undefined) {
    throw new ConfigError('SPOOR_KAFKA_SASL_PASSWORD_FILE', 'set SPOOR_KAFKA_SASL_PASSWORD or this, not both', file);
  }
  if (mechanism === undefined) {
    const stray = (
      ['SPOOR_KAFKA_SASL_USERNAME', 'SPOOR_KAFKA_SASL_PASSWORD', 'SPOOR_KAFKA_SASL_PASSWORD_FILE'] as const
    ).find((n) => p[n] !== undefined);
    if (stray)
      throw new ConfigError(
        'SPOOR_KAFKA_SASL_MECHANISM',
        `required with ${stray} (plain, scram-sha-256 or scram-sha-512)`,
        '',
      );
    return null;
  }
  if (username === undefined)
    throw new ConfigError('SPOOR_KAFKA_SASL_USERNAME', 'required with SPOOR_KAFKA_SASL_MECHANISM', '');
  // A mounted secret usually ends with a newline that is not part of the password.
  const password =
    file !== undefined ? readSetting('SPOOR_KAFKA_SASL_PASSWORD_FILE', file).replace(/\r?\n$/, '') : inline;
  if (password === undefined || password === '') {
    const variable = file !== undefined ? 'SPOOR_KAFKA_SASL_PASSWORD_FILE' : 'SPOOR_KAFKA_SASL_PASSWORD';
    throw new ConfigError(
      variable,
      'a password is required with SPOOR_KAFKA_SASL_MECHANISM (this or SPOOR_KAFKA_SASL_PASSWORD_FILE)',
      env[variable],
    );
  }
  return { mechanism, username, password };
}
