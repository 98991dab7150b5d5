import { createSpoorClient } from '@spoor/client';
import { describeFailure } from '../api-result.js';
import type { StoredLogin } from '../auth-store.js';
import { CliError } from '../cli-errors.js';
import type { CliSession } from '../cli-session.js';

/** What the server did with the stored token: revoked it, or had nothing left to revoke. */
interface Revocation {
  revoked: boolean;
  note: string;
}

/**
 * Asks the server to revoke the stored token (POST /v1/auth/logout). A token the server already
 * refuses (expired, revoked) needs nothing more. Any other failure throws, after the caller has
 * removed the local file: the token then stays valid on the server, which the user must hear.
 */
async function revokeOnServer(login: StoredLogin, now: number): Promise<Revocation> {
  if (login.expires_at !== null && login.expires_at <= now) return { revoked: false, note: 'the token had expired' };
  let result;
  try {
    result = await createSpoorClient({ baseUrl: login.url, token: login.token }).POST('/v1/auth/logout');
  } catch (err) {
    throw new Error(`${login.url} could not be reached (${(err as Error).message})`);
  }
  if (result.response.ok) return { revoked: true, note: 'the server revoked the token' };
  if (result.response.status === 401) return { revoked: false, note: 'the server no longer accepted the token' };
  throw new Error(
    `${login.url} answered ${result.response.status}: ${describeFailure(result.response.status, result.error ?? null)}`,
  );
}

/** The stored login, or why it cannot be read (a damaged file is still removed). */
async function readableLogin(s: CliSession): Promise<StoredLogin | null> {
  try {
    return await s.store.readLogin();
  } catch {
    return null;
  }
}

/** `spoor logout`: revoke the token on the server, and remove auth.json whatever the server said. */
export async function logout(s: CliSession): Promise<void> {
  const login = await readableLogin(s);
  const outcome = login ? await revokeOnServer(login, Date.now()).catch((err: Error) => err) : null;
  const had = await s.store.clearLogin();
  if (outcome instanceof Error) {
    const until = login!.expires_at === null ? '' : ` until ${s.out.time(login!.expires_at)}`;
    throw new CliError(
      `removed the stored login, but the server did not revoke the token: ${outcome.message}; the token stays valid${until}`,
    );
  }
  const revoked = outcome?.revoked ?? false;
  s.out.result({ logged_out: had, revoked }, () =>
    had ? `logged out${outcome ? `; ${outcome.note}` : ''}` : 'not logged in',
  );
}
