// Issue 42, item 5 (docs/data.md "Export"): 40 identical exports queued in 2.5 s wrote 402 MB
// from a 32 MB store. Before an export is queued, the account's exports are read from the store
// (the jobs table, so every gateway replica and both engines see the same): an identical export
// still valid answers instead, and over a cap the request is refused with 429 `export_quota`.
import type { ExportCaps } from '@spoor/config';
import { createError, type HttpError } from '@spoor/http';
import type { ExportFormat, ExportWhat } from '@spoor/schemas';
import type { ExportUsage, Store } from '@spoor/store';

/** The job request of an export, built in one order so that identical requests store identical JSON. */
export interface ExportJobRequest {
  what: ExportWhat;
  format: ExportFormat;
  window_start?: number;
  window_end?: number;
}

export interface AdmittedExport {
  job_id: string;
  status: 'queued' | 'running' | 'succeeded';
  reused: boolean;
}

/** How long a client over the cap on exports at once is asked to wait: exports take seconds. */
const ACTIVE_RETRY_SECONDS = 10;

export class ExportQuota {
  /** The last admission of each account in this process: the next one waits for it. */
  readonly #tails = new Map<string, Promise<void>>();

  constructor(private readonly deps: { store: Store; caps: ExportCaps; clock: () => number }) {}

  /**
   * Answers the identical export still valid, or refuses over a cap, or queues a new one with
   * `queue`. One account's admissions run one at a time in this process, so a burst cannot all
   * pass the check before any is recorded (replicas of the gateway can each admit one more).
   */
  admit(
    accountId: string,
    projectId: string,
    request: ExportJobRequest,
    queue: () => Promise<{ job_id: string }>,
  ): Promise<AdmittedExport> {
    return this.#serial(accountId, async () => {
      const usage = await this.deps.store.exports.usage({
        account_id: accountId,
        now: this.deps.clock(),
        project_id: projectId,
        request: { ...request },
      });
      const same = await this.#stillValid(usage, projectId, request);
      if (same) return { job_id: same.job_id, status: same.status, reused: true };
      this.#checkCaps(usage);
      const job = await queue();
      return { job_id: job.job_id, status: 'queued', reused: false };
    });
  }

  /** A queued or running export will read the rows later or is reading them now; a written one only while its rows are unchanged. */
  async #stillValid(usage: ExportUsage, projectId: string, request: ExportJobRequest) {
    const same = usage.same;
    if (!same || same.status !== 'succeeded') return same;
    const now = await this.deps.store.exports.mark({
      project_id: projectId,
      what: request.what,
      window_start: request.window_start ?? null,
      window_end: request.window_end ?? null,
    });
    return same.mark === now ? same : null;
  }

  #checkCaps(usage: ExportUsage): void {
    const { maxActive, maxBytes } = this.deps.caps;
    if (maxActive > 0 && usage.active >= maxActive)
      throw quotaError(
        `This account has ${usage.active} exports queued or running, the most it may have at once (${maxActive}); wait for one to finish (GET /v1/jobs/{job_id}) and try again`,
        ACTIVE_RETRY_SECONDS,
      );
    if (maxBytes > 0 && usage.bytes >= maxBytes) {
      const next = usage.next_expiry ?? this.deps.clock();
      throw quotaError(
        `This account's export files hold ${bytes(usage.bytes)}, the most it may hold (${bytes(maxBytes)}); files expire 24 hours after they were written, the next at ${new Date(next).toISOString()}`,
        Math.max(1, Math.ceil((next - this.deps.clock()) / 1000)),
      );
    }
  }

  #serial<T>(key: string, run: () => Promise<T>): Promise<T> {
    const result = (this.#tails.get(key) ?? Promise.resolve()).then(run);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }
}

function quotaError(detail: string, retryAfterSeconds: number): HttpError {
  const err = createError('export_quota', detail);
  err.headers['Retry-After'] = String(retryAfterSeconds);
  return err;
}

const bytes = (n: number) => `${n.toLocaleString('en-US')} bytes`;
