/**
 * POSTs JSON to a running Spoor as a user's client would, with a Bearer token when given, and
 * returns the parsed answer; any status but 200 throws with the start of the body (the benches'
 * account setup: signup, then registering the project).
 */
export async function postJson<T>(url: string, body: unknown, token?: string): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers['authorization'] = `Bearer ${token}`;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200)
    throw new Error(`POST ${new URL(url).pathname} answered ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}
