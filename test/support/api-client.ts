/** A small HTTP helper for tests: JSON in, status + parsed body + headers out. */
export interface ApiResponse {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    public token: string | null = null,
  ) {}

  withToken(token: string | null): ApiClient {
    return new ApiClient(this.baseUrl, token);
  }

  get(path: string, query: Record<string, string | number | undefined> = {}): Promise<ApiResponse> {
    return this.call('GET', path, query);
  }

  post(path: string, body: unknown, query: Record<string, string | number | undefined> = {}): Promise<ApiResponse> {
    return this.call('POST', path, query, body);
  }

  delete(path: string, query: Record<string, string | number | undefined> = {}): Promise<ApiResponse> {
    return this.call('DELETE', path, query);
  }

  async call(
    method: string,
    path: string,
    query: Record<string, string | number | undefined> = {},
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse> {
    const url = new URL(path, this.baseUrl);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
    const h: Record<string, string> = { ...headers };
    if (this.token) h['authorization'] = `Bearer ${this.token}`;
    if (body !== undefined) h['content-type'] = 'application/json';
    const res = await fetch(url, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await answerText(res);
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed, text, headers: res.headers };
  }
}

/**
 * The body as text; an event stream (GET /v1/live once accepted) never ends, so for one the
 * status and headers are the answer and the body is left unread ('').
 */
export async function answerText(res: Response): Promise<string> {
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    await res.body?.cancel();
    return '';
  }
  return res.text();
}

/** Signs up a fresh account on the built-in issuer and answers a client holding its token. */
export async function signUp(
  baseUrl: string,
  email = `u${Math.random().toString(36).slice(2)}@example.com`,
): Promise<ApiClient> {
  const res = await new ApiClient(baseUrl).post('/v1/auth/signup', { email, password: 'correct horse battery' });
  if (res.status !== 200) throw new Error(`signup failed: ${res.status} ${res.text}`);
  return new ApiClient(baseUrl, res.body.id_token as string);
}
