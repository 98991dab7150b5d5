interface Pending<T> {
  items: T[];
  resolve: () => void;
  reject: (err: unknown) => void;
  /** Settled already (its deadline passed): never written if still queued, its result ignored if in flight. */
  settled: boolean;
}

/** A write the bus could not get acknowledged in time (issue 16): not acknowledged, may still land. */
export class PublishTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the bus did not acknowledge the write within ${timeoutMs} ms`);
    this.name = 'PublishTimeoutError';
  }
}

/**
 * Batches concurrent writes: while one flush runs, new items queue up, and the next flush takes
 * them all as soon as the previous one returns. No timer: measured here, a fixed 10 ms flush
 * timer capped 50 connections at ~3,800 req/s while flushing on return reached ~22,000 (issue 2).
 */
export class GroupCommit<T> {
  private queue: Array<Pending<T>> = [];
  private flushing = false;

  constructor(
    private readonly flush: (items: T[]) => Promise<void>,
    private readonly maxItems = 5000,
  ) {}

  /**
   * Resolves once the flush that carried `items` completed; rejects if it failed. With
   * `timeoutMs`, rejects with PublishTimeoutError when that flush has not completed by then
   * (issue 16: a broker that is away must not hold requests). Items still queued at their
   * deadline are dropped, so an outage does not pile up writes nobody waits for; items already
   * in flight may still be written (an at-least-once retry by the client is deduplicated).
   */
  add(items: T[], timeoutMs?: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const pending: Pending<T> = {
        items,
        settled: false,
        resolve: () => {
          if (pending.settled) return;
          pending.settled = true;
          clearTimeout(timer);
          resolve();
        },
        reject: (err) => {
          if (pending.settled) return;
          pending.settled = true;
          clearTimeout(timer);
          reject(err);
        },
      };
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          const at = this.queue.indexOf(pending);
          if (at >= 0) this.queue.splice(at, 1);
          pending.reject(new PublishTimeoutError(timeoutMs));
        }, timeoutMs);
        timer.unref();
      }
      this.queue.push(pending);
      if (!this.flushing) void this.drain();
    });
  }

  get pending(): number {
    return this.queue.reduce((n, p) => n + p.items.length, 0);
  }

  private takeChunk(): Array<Pending<T>> {
    let count = 0;
    let i = 0;
    while (i < this.queue.length && (i === 0 || count + this.queue[i]!.items.length <= this.maxItems)) {
      count += this.queue[i]!.items.length;
      i++;
    }
    return this.queue.splice(0, i);
  }

  private async drain(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const chunk = this.takeChunk();
        const items = chunk.flatMap((p) => p.items);
        // Held by the flush alone from here, which may let them go once written out (issue 14).
        for (const p of chunk) p.items = [];
        try {
          await this.flush(items.splice(0));
          for (const p of chunk) p.resolve();
        } catch (err) {
          for (const p of chunk) p.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
