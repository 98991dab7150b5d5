interface Pending<T> {
  items: T[];
  resolve: () => void;
  reject: (err: unknown) => void;
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

  /** Resolves once the flush that carried `items` completed; rejects if it failed. */
  add(items: T[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ items, resolve, reject });
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
        try {
          await this.flush(chunk.flatMap((p) => p.items));
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
