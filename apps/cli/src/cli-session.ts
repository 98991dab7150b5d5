import { createSpoorClient, type SpoorClient } from '@spoor/client';
import { AuthStore, type StoredContext, type StoredLogin } from './auth-store.js';
import { CliError, UsageError } from './cli-errors.js';
import type { CliEnvironment } from './cli-environment.js';
import { CliOutput } from './cli-output.js';

/** Options every command takes (`spoor --help`). */
export interface GlobalOptions {
  url?: string;
  json?: boolean;
  utc?: boolean;
  origin?: string;
  project?: string;
}

export interface CliStreams {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
}

/** What a command runs with: where the server is, who the user is, which project, how to print. */
export class CliSession {
  readonly store: AuthStore;
  readonly out: CliOutput;

  constructor(
    readonly options: GlobalOptions,
    readonly env: CliEnvironment,
    readonly streams: CliStreams,
  ) {
    this.store = new AuthStore(env.configDir);
    this.out = new CliOutput({
      machine: !!options.json || !streams.stdout.isTTY,
      utc: !!options.utc,
      write: (t) => void streams.stdout.write(t),
    });
  }

  private loginRead: Promise<StoredLogin | null> | null = null;

  /** auth.json, read once per command (the server, the token and whoami all need it). */
  login(): Promise<StoredLogin | null> {
    return (this.loginRead ??= this.store.readLogin());
  }

  /** --url, else SPOOR_URL, else the server of the stored login. */
  async serverUrl(): Promise<string> {
    const url = this.options.url ?? this.env.url ?? (await this.login())?.url;
    if (!url) throw new UsageError('no server: pass --url, set SPOOR_URL, or run `spoor login <email> --url <server>`');
    return url.replace(/\/+$/, '');
  }

  /** A client without credentials (signup, login) for the server at `baseUrl`. */
  anonymous(baseUrl: string): SpoorClient {
    return createSpoorClient({ baseUrl });
  }

  /** A client with SPOOR_TOKEN or the stored login's token, checked for expiry first. */
  async client(): Promise<SpoorClient> {
    return createSpoorClient(await this.credentials());
  }

  /** The server and the token client() uses, for what the typed client does not cover (the live event stream). */
  async credentials(): Promise<{ baseUrl: string; token: string }> {
    const baseUrl = await this.serverUrl();
    if (this.env.token) return { baseUrl, token: this.env.token };
    const login = await this.login();
    if (!login) throw new CliError('not logged in: run `spoor login <email>` (or set SPOOR_TOKEN)');
    if (login.url.replace(/\/+$/, '') !== baseUrl)
      throw new CliError(
        `you are logged in to ${login.url}, not ${baseUrl}: run \`spoor login <email> --url ${baseUrl}\``,
      );
    if (login.expires_at !== null && login.expires_at <= Date.now()) {
      throw new CliError(
        `your login as ${login.email} expired at ${this.out.time(login.expires_at)}: run \`spoor login ${login.email}\` again`,
      );
    }
    return { baseUrl, token: login.token };
  }

  /** --origin and --project, else what `spoor use` stored. */
  async scope(): Promise<StoredContext> {
    const stored = await this.store.readContext();
    const origin = this.options.origin ?? stored?.origin;
    const project = this.options.project ?? stored?.project;
    if (!origin || !project)
      throw new UsageError('which project? pass --origin and --project, or run `spoor use <origin> <project>` once');
    return { origin, project };
  }
}
