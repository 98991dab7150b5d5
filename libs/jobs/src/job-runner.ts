import { hostname } from 'node:os';
import { sleep, type BatchContext, type Bus, type DeliveredMessage, type Subscription } from '@spoor/bus';
import type { Kv } from '@spoor/kv';
import type { Logger } from '@spoor/service-log';
import { kvKeys, type JobCommand, type JobKind, type JobRecord } from '@spoor/schemas';
import type { JobRepository } from '@spoor/store';

/** What a running job can report. */
export interface JobContext {
  /** Records progress (throttled) and keeps the job's claim alive. */
  progress(done: number, total: number | null): Promise<void>;
  /** Keeps the claim alive without a progress change; call it in long loops. */
  heartbeat(): Promise<void>;
  /**
   * Replaces the job's stored request with what its record may keep (issue 43: an erasure's IP
   * under the project's IP policy); later writes of the record keep the replacement.
   */
  redactRequest?(request: Record<string, unknown>): Promise<void>;
  /** Aborted when the runner stops: a handler gives up at its next check, the job stays queued for the next worker. */
  signal: AbortSignal;
  logger: Logger;
}

/** Runs one job and answers its result (stored as JSON), or throws to fail it. */
export type JobHandler = (job: JobRecord, ctx: JobContext) => Promise<unknown>;

/** Thrown by a handler for a failure that retrying cannot fix (the job fails at once). */
export class JobFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobFailure';
  }
}

export interface JobRunnerOptions {
  jobs: JobRepository;
  kv: Kv;
  bus: Bus;
  /** The command topic of a job kind. */
  topic: (kind: JobKind) => string;
  /**
   * Consumer group prefix: each kind gets its own group (`<group>-<kind>`), because a Kafka
   * group's assignor spreads every subscribed topic over every member, whatever each member
   * itself subscribed to.
   */
  group: string;
  handlers: Partial<Record<JobKind, JobHandler>>;
  logger: Logger;
  clock: () => number;
  /** A claim not renewed for this long is taken over (the worker is presumed dead). */
  leaseMs?: number;
  /** Attempts within one delivery before a throwing handler fails the job. */
  maxAttempts?: number;
  workerId?: string;
  /** Hears of each job this runner finished (succeeded or failed), as stored. */
  onFinished?: (job: JobRecord) => void;
}

const leaseKey = kvKeys.jobLease;
const isFinished = (j: JobRecord) => j.status === 'succeeded' || j.status === 'failed';

/**
 * Consumes job commands (DESIGN.md, Jobs). Delivery is at least once; the result is effectively
 * once: a finished job is never run again, and a claim (a KV lease renewed while the job runs)
 * keeps a second worker that receives the same command — after a rebalance, say — waiting
 * until the first one finishes or stops renewing. A worker that was killed leaves an
 * uncommitted command and a lease that expires; the command is redelivered to a live worker,
 * which takes the job over and runs it from the start (handlers write idempotently).
 */
export class JobRunner {
  private readonly subs: Subscription[] = [];
  private readonly leaseMs: number;
  private readonly workerId: string;
  private stopping = false;
  private readonly abort = new AbortController();
  private readonly counters = { started: 0, succeeded: 0, failed: 0, skipped: 0, takenOver: 0 };

  constructor(private readonly opts: JobRunnerOptions) {
    this.leaseMs = opts.leaseMs ?? 15_000;
    this.workerId = opts.workerId ?? `${hostname()}:${process.pid}`;
  }

  /** The topic and group per kind, for lag reporting. */
  consumes(): Array<{ topic: string; group: string }> {
    return (Object.keys(this.opts.handlers) as JobKind[]).map((kind) => ({
      topic: this.opts.topic(kind),
      group: `${this.opts.group}-${kind}`,
    }));
  }

  async start(): Promise<void> {
    for (const c of this.consumes()) {
      this.subs.push(
        await this.opts.bus.subscribe({ ...c, maxBatch: 1, handler: (batch, ctx) => this.handle(batch, ctx) }),
      );
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.abort.abort();
    await Promise.all(this.subs.splice(0).map((s) => s.stop()));
  }

  stats(): Record<string, number> {
    return { ...this.counters };
  }

  private async handle(batch: DeliveredMessage[], bctx: BatchContext): Promise<void> {
    for (const m of batch) {
      const command = parseCommand(m.value);
      if (!command) {
        this.opts.logger.warn('skipping a malformed job command', { topic: m.topic, offset: m.offset });
        continue;
      }
      await this.runOnce(command.job_id, bctx);
    }
  }

  private async runOnce(jobId: string, bctx: BatchContext): Promise<void> {
    const { jobs, kv, logger } = this.opts;
    const beat = () => bctx.heartbeat().catch((err) => logger.debug('heartbeat refused', { err }));
    // Claim the job; while another live worker holds it, wait (and keep our group membership).
    for (;;) {
      const job = await jobs.get(jobId);
      if (!job) {
        logger.warn('a command names an unknown job; skipping it', { job_id: jobId });
        return;
      }
      if (isFinished(job)) {
        this.counters.skipped++;
        return;
      }
      if (await kv.setIfAbsent(leaseKey(jobId), this.workerId, this.leaseMs)) return this.run(job, beat);
      if ((await kv.get(leaseKey(jobId))) === this.workerId) return this.run(job, beat);
      if (this.stopping) throw new Error('stopping while another worker holds the job');
      await beat();
      await sleep(Math.min(1000, this.leaseMs / 3));
    }
  }

  private async run(claimed: JobRecord, beat: () => Promise<void>): Promise<void> {
    const { jobs, kv, clock, logger, handlers } = this.opts;
    const handler = handlers[claimed.kind];
    const stamp = (prev: JobRecord) => Math.max(clock(), prev.updated_at + 1);
    let job: JobRecord = {
      ...claimed,
      status: 'running',
      started_at: claimed.started_at ?? clock(),
      attempts: claimed.attempts + 1,
      worker: this.workerId,
      error: null,
    };
    if (claimed.status === 'running') this.counters.takenOver++;
    job.updated_at = stamp(claimed);
    await jobs.put(job);
    this.counters.started++;
    const renew = setInterval(
      () => void kv.set(leaseKey(job.job_id), this.workerId, this.leaseMs).catch(() => {}),
      Math.max(50, this.leaseMs / 3),
    );
    renew.unref();
    let lastProgressWrite = 0;
    const ctx: JobContext = {
      logger: logger.child(job.kind),
      heartbeat: beat,
      redactRequest: async (request) => {
        job = { ...job, request, updated_at: stamp(job) };
        await jobs.put(job);
      },
      signal: this.abort.signal,
      progress: async (done, total) => {
        await beat();
        if (clock() - lastProgressWrite < 500 && done !== total) return;
        lastProgressWrite = clock();
        job = { ...job, progress: { done, total }, updated_at: stamp(job) };
        await jobs.put(job);
      },
    };
    try {
      let outcome: { ok: true; result: unknown } | { ok: false; error: string };
      if (!handler) outcome = { ok: false, error: `${job.kind} jobs are not run by this deployment yet` };
      else outcome = await this.attempt(handler, job, ctx);
      job = outcome.ok
        ? {
            ...job,
            status: 'succeeded',
            progress: complete(job.progress),
            result: outcome.result ?? null,
            error: null,
            finished_at: clock(),
          }
        : { ...job, status: 'failed', error: outcome.error, finished_at: clock() };
      job.updated_at = stamp(job);
      await jobs.put(job);
      this.counters[outcome.ok ? 'succeeded' : 'failed']++;
      this.opts.onFinished?.(job);
      logger.info('job finished', {
        job_id: job.job_id,
        kind: job.kind,
        status: job.status,
        attempts: job.attempts,
        ms: clock() - (job.started_at ?? clock()),
      });
    } finally {
      clearInterval(renew);
      await kv.del(leaseKey(job.job_id)).catch(() => {});
    }
  }

  private async attempt(
    handler: JobHandler,
    job: JobRecord,
    ctx: JobContext,
  ): Promise<{ ok: true; result: unknown } | { ok: false; error: string }> {
    const max = this.opts.maxAttempts ?? 3;
    for (let i = 1; ; i++) {
      try {
        return { ok: true, result: await handler(job, ctx) };
      } catch (err) {
        // Stopping: leave the job to the worker that gets the uncommitted command next.
        if (this.stopping) throw err;
        const message = err instanceof Error ? err.message : String(err);
        if (err instanceof JobFailure || i >= max) return { ok: false, error: message };
        ctx.logger.warn('job attempt failed; retrying', { job_id: job.job_id, attempt: i, err });
        await sleep(200 * 2 ** i);
      }
    }
  }
}

/**
 * A succeeded job's progress is whole: progress writes are throttled, so the last one recorded
 * may be any step before the end (issue 43: a finished account deletion showed 0 of 2).
 */
function complete(progress: JobRecord['progress']): JobRecord['progress'] {
  return progress && progress.total !== null ? { done: progress.total, total: progress.total } : progress;
}

function parseCommand(value: string): JobCommand | null {
  try {
    const c = JSON.parse(value) as JobCommand;
    return typeof c?.job_id === 'string' && typeof c.kind === 'string' ? c : null;
  } catch {
    return null;
  }
}
