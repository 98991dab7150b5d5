import type { Readable } from 'node:stream';
import { tlsFailureOf } from '@spoor/config';
import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';

export type Row = Record<string, unknown>;
export type Params = Record<string, unknown>;

/**
 * Database names come from configuration and are the only thing ever written into SQL text,
 * so they must be plain identifiers; every value travels as a `{name:Type}` query parameter.
 */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export function checkIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not a valid ClickHouse identifier: ${JSON.stringify(name)}`);
  return name;
}

export interface ClickHouseConnectionOptions {
  url: string;
  database?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  /**
   * PEM for an https:// URL (SPOOR_CLICKHOUSE_TLS_*, issue 46): a private CA, a client
   * certificate. Unset or no `ca`: the system's CAs. The hostname is always verified.
   */
  tls?: { ca?: string; cert?: string; key?: string } | null | undefined;
  /**
   * Called with each SELECT as sent, text and parameters (issue 15: a test asks the engine for its
   * plan of exactly the queries the store makes, to prove a read stays a point read).
   */
  onSelect?: ((query: string, params: Params) => void) | undefined;
}

/** A thin layer over @clickhouse/client: JSONEachRow in and out, tables qualified by database. */
export class ClickHouseConnection {
  readonly database: string;

  private constructor(
    private readonly client: ClickHouseClient,
    database: string,
    private readonly onSelect?: (query: string, params: Params) => void,
  ) {
    this.database = database;
  }

  static create(opts: ClickHouseConnectionOptions): ClickHouseConnection {
    const database = checkIdentifier(opts.database ?? 'spoor');
    // No `database` on the client: the database may not exist until migrate() creates it, so
    // every statement names `<database>.<table>` instead.
    const client = createClient({
      url: opts.url,
      ...(opts.username !== undefined ? { username: opts.username } : {}),
      ...(opts.password !== undefined ? { password: opts.password } : {}),
      ...clientTls(opts.tls),
      compression: { request: false, response: false },
      // Large getMany() id lists would otherwise overflow the URL.
      use_multipart_params_auto: true,
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    });
    return new ClickHouseConnection(client, database, opts.onSelect);
  }

  /** `<database>.<table>`; table names are constants of this package. */
  table(name: string): string {
    return `${this.database}.${checkIdentifier(name)}`;
  }

  async rows(query: string, params: Params = {}): Promise<Row[]> {
    this.onSelect?.(query, params);
    const result = await this.client.query({ query, query_params: params, format: 'JSONEachRow' });
    return result.json<Row>();
  }

  async command(query: string, params: Params = {}): Promise<void> {
    await this.client.command({ query, query_params: params });
  }

  async insert(table: string, values: Row[]): Promise<void> {
    if (values.length === 0) return;
    await this.client.insert({ table: this.table(table), values, format: 'JSONEachRow' });
  }

  /** The raw response body of a query that names its own FORMAT (exports: the engine's own writers). */
  async exec(query: string, params: Params = {}, settings: ClickHouseSettings = {}): Promise<Readable> {
    const result = await this.client.exec({ query, query_params: params, clickhouse_settings: settings });
    return result.stream;
  }

  async ping(): Promise<void> {
    const r = await this.client.ping();
    if (!r.success) throw explainTlsFailure(r.error);
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** @clickhouse/client's `tls`: it takes a client certificate only beside a CA. */
function clientTls(tls: ClickHouseConnectionOptions['tls']): {
  tls?: { ca_cert: Buffer; cert?: Buffer; key?: Buffer };
} {
  if (!tls?.ca) {
    if (tls?.cert) throw new Error('SPOOR_CLICKHOUSE_TLS_CERT_FILE needs SPOOR_CLICKHOUSE_TLS_CA_FILE as well');
    return {};
  }
  const ca_cert = Buffer.from(tls.ca);
  return {
    tls: tls.cert && tls.key ? { ca_cert, cert: Buffer.from(tls.cert), key: Buffer.from(tls.key) } : { ca_cert },
  };
}

/** A TLS failure of the first request as an error naming the setting to fix (issue 46). */
function explainTlsFailure(err: Error): Error {
  const { code = '', message } = err as NodeJS.ErrnoException;
  const failure = tlsFailureOf(code, message);
  if (failure === 'untrusted') {
    return new Error(
      `ClickHouse's certificate is not trusted: ${message} [${code}] (SPOOR_CLICKHOUSE_TLS_CA_FILE / SPOOR_CLICKHOUSE_URL)`,
      { cause: err },
    );
  }
  if (failure === 'handshake') {
    return new Error(
      `ClickHouse ended the TLS handshake: ${message.split('\n')[0]} (SPOOR_CLICKHOUSE_URL / SPOOR_CLICKHOUSE_TLS_CERT_FILE / SPOOR_CLICKHOUSE_TLS_KEY_FILE)`,
      { cause: err },
    );
  }
  return err;
}
