import { CliError } from './cli-errors.js';

interface ValidationItem {
  loc?: Array<string | number>;
  msg?: string;
}

/** The server's error body in lines: its `detail`, or one line per field of a 422. */
export function describeFailure(status: number, body: unknown): string {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (Array.isArray(detail)) {
    const lines = (detail as ValidationItem[]).map((d) => `${(d.loc ?? []).join('.')}: ${d.msg ?? 'invalid'}`);
    return lines.length ? lines.join('\n') : `invalid request (${status})`;
  }
  if (typeof detail === 'string' && detail) return detail;
  return `the server answered ${status}`;
}

/**
 * The data of a typed client call, or a CliError with the server's words. A 401 says what to
 * do about it: the token expired or was revoked, and logging in again fixes both.
 */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  const { response } = result;
  if (response.ok) return result.data as T;
  const text = describeFailure(response.status, result.error ?? null);
  if (response.status === 401)
    throw new CliError(`the server refused your credentials (${text}); run \`spoor login <email>\` again`);
  throw new CliError(text);
}
