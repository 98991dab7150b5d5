import type { Readable } from 'node:stream';
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
    if (!r.success) throw r.error;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
