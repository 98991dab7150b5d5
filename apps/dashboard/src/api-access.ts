import { createSpoorClient, type components, type SpoorClient } from '@spoor/client';
import { storedToken } from './auth-store.js';

/** An answer other than 2xx, with the API's words: `detail`, or each 422 issue as "where: what". */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly issues: string[] = [],
  ) {
    super(message);
  }
}

export interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

let onUnauthorized: (message: string) => void = () => {};

/** What a 401 does (main.ts: back to the login page with a message). */
export function handleUnauthorized(fn: (message: string) => void): void {
  onUnauthorized = fn;
}

/** A 401 met outside ok() (the live stream): signed in, so the token expired or was revoked. */
export function reportUnauthorized(message: string): void {
  if (storedToken()) onUnauthorized(message);
}

/** The dashboard is served by the API's own server, so the API is this origin. */
export function api(): SpoorClient {
  return createSpoorClient({ baseUrl: location.origin, token: storedToken()?.id_token ?? null });
}

function issuesOf(error: unknown): string[] {
  const detail = (error as { detail?: unknown } | null)?.detail;
  if (!Array.isArray(detail)) return [];
  return detail.map(
    (d: { loc?: unknown[]; msg?: string }) =>
      `${(d.loc ?? []).filter((p) => p !== 'body' && p !== 'query').join('.') || 'request'}: ${d.msg ?? 'invalid'}`,
  );
}

/** Unwraps an openapi-fetch answer: its data, or an ApiError (and the 401 hook). */
export async function ok<T>(call: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch (err) {
    throw new ApiError(0, `The server did not answer (${(err as Error).message})`);
  }
  const { data, error, response } = answer;
  if (response.ok) return data as T;
  const detail = (error as { detail?: unknown } | null)?.detail;
  const issues = issuesOf(error);
  const message =
    typeof detail === 'string'
      ? detail
      : issues.length
        ? issues.join('; ')
        : `${response.status} ${response.statusText}`;
  // Signed in and refused: the token expired or was revoked. (Signed out, a 401 is a wrong password.)
  if (response.status === 401 && storedToken()) onUnauthorized(message);
  throw new ApiError(response.status, message, issues);
}

export type Job = components['schemas']['Job'];

/** Waits for a triggered job to succeed and answers it; throws, saying how, when it failed or is still running at the deadline. */
export async function waitForJob(jobId: string, what: string, timeoutMs = 60_000): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await ok(api().GET('/v1/jobs/{job_id}', { params: { path: { job_id: jobId } } }));
    if (job.status === 'succeeded') return job;
    if (job.status === 'failed') throw new Error(`${what} failed: ${job.error ?? 'no reason given'}`);
    if (Date.now() > deadline) throw new Error(`${what} is still running; look again later`);
    await new Promise((r) => setTimeout(r, 400));
  }
}
