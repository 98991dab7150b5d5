// The one way @spoor/auth talks to an external identity provider (discovery and JWKS).
// Every failure becomes an AuthError('issuer_unavailable'), and after a failure further calls
// fail at once for `failureBackoffMs`: while the provider is down, each request with a token
// costs nothing and the provider is not hammered when it comes back (jose's own cooldown only
// applies after a SUCCESSFUL fetch, see jose/dist/webapi/jwks/remote.js).
import { AuthError } from './auth-errors.js';

export type FetchFunction = (url: string, init?: RequestInit) => Promise<Response>;

export interface IssuerFetchOptions {
  timeoutMs: number;
  failureBackoffMs: number;
  /** Monotonic enough for back-off; defaults to Date.now. */
  clock?: () => number;
  fetch?: FetchFunction;
}

const unavailable = (cause: unknown) =>
  new AuthError('issuer_unavailable', 'The identity provider could not be reached; try again later', { cause });

export function createIssuerFetch(options: IssuerFetchOptions): FetchFunction {
  const clock = options.clock ?? Date.now;
  const fetchImpl = options.fetch ?? ((url, init) => fetch(url, init));
  let failedAt = -Infinity;

  return async (url, init) => {
    if (clock() - failedAt < options.failureBackoffMs) throw unavailable(new Error('backing off after a failure'));
    // The caller's signal (jose passes one) wins; otherwise our own timeout.
    const signal = init?.signal ?? AbortSignal.timeout(options.timeoutMs);
    let response: Response;
    try {
      // Redirects are not followed: a JWKS or discovery URL that redirects is a configuration
      // error, and following it would let whoever controls the redirect supply keys.
      response = await fetchImpl(url, { ...init, signal, redirect: 'manual' });
    } catch (err) {
      failedAt = clock();
      throw unavailable(err);
    }
    if (response.status !== 200) {
      failedAt = clock();
      await response.body?.cancel().catch(() => undefined);
      throw unavailable(new Error(`${url} answered ${response.status}`));
    }
    return response;
  };
}
