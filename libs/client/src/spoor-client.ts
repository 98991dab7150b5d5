import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './api-types.js';

export type SpoorClient = Client<paths>;

export interface SpoorClientOptions {
  /** The server, e.g. `http://127.0.0.1:8080` (paths carry their `/v1`). */
  baseUrl: string;
  /** An ID token or an API key. */
  token?: string | null;
  fetch?: typeof fetch;
}

/**
 * A typed client of the whole API: every path, parameter and body is checked by the compiler
 * against the types generated from the server's OpenAPI document.
 */
export function createSpoorClient(opts: SpoorClientOptions): SpoorClient {
  const headers: Record<string, string> = opts.token ? { authorization: `Bearer ${opts.token}` } : {};
  return createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/$/, ''),
    headers,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
}
