import { open, readdir, type FileHandle } from 'node:fs/promises';
import { readRecords, SEGMENT_NAME, segmentPath, type ReadResult } from './topic-log.js';

/** ES2024's Atomics.waitAsync (Node 16 on), which the ES2023 lib we compile against does not declare. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      cell: BigInt64Array,
      index: number,
      value: bigint,
      timeoutMs: number,
    ): { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync.bind(Atomics);

/**
 * How long a wait for more records lasts before the caller looks again: a safety net, since every
 * write notifies. Each consumer on the pipeline thread (a dozen, most of them job topics that stay
 * empty) woke once a second for nothing at 1 s (issue 41, idle CPU).
 */
const WAIT_MS = 10_000;

/**
 * Reads a topic's segment files while a TopicLog on another thread writes them (issue 14: the
 * all-in-one process' pipeline thread reads its batches itself instead of the HTTP thread reading
 * and copying them over). It reads only up to the end the log shares (TopicLog.shareEnd), which
 * moves after each write reached the kernel, so it never sees a record the log has not
 * acknowledged, nor a torn one; it waits on that cell for more. Segments are found by their file
 * names; the writer deletes only segments below every group's committed offset, which a reader
 * never goes back before.
 */
export class LogFollower {
  private readonly endCell: BigInt64Array;
  /** Base offsets of the segment files, as last listed. */
  private bases: number[] = [];
  private file: { base: number; fh: FileHandle } | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly dir: string,
    end: SharedArrayBuffer,
  ) {
    this.endCell = new BigInt64Array(end);
  }

  /** Offset after the last record the log acknowledged. */
  get end(): number {
    return Number(Atomics.load(this.endCell, 0));
  }

  /** Reads whole records from `from` on, at most `max` of them and about `maxBytes`. */
  async read(from: number, max: number, maxBytes = 4 << 20): Promise<ReadResult> {
    const end = this.end;
    let listed = this.bases.length === 0;
    if (listed) await this.list();
    for (; ; listed = true) {
      if (this.bases.length > 0 && from < this.bases[0]!) from = this.bases[0]!; // as TopicLog.read
      if (from >= end) return { records: [], next: from };
      let i = this.bases.length - 1;
      while (i >= 0 && this.bases[i]! > from) i--;
      if (i >= 0) {
        const base = this.bases[i]!;
        const limit = Math.min(this.bases[i + 1] ?? end, end) - from;
        const result = await this.readAt(base, from, limit, max, maxBytes);
        if (result && result.records.length > 0) return result;
      }
      // Past the segments this follower knew of (the log rolled to a new file), or one deleted.
      if (listed) throw new Error(`embedded log ${this.dir}: no record at ${from}, below its end ${end}`);
      await this.list();
    }
  }

  /** Resolves when the log's end passes `offset`, after a while anyway, or at wakeAll(). */
  async waitForData(offset: number): Promise<void> {
    const end = Atomics.load(this.endCell, 0);
    if (Number(end) > offset) return;
    const waited = waitAsync(this.endCell, 0, end, WAIT_MS);
    if (!waited.async) return;
    await Promise.race([waited.value, new Promise<void>((resolve) => (this.wake = resolve))]);
    this.wake = null;
  }

  /** Ends a waitForData at once (a consumer that stops). */
  wakeAll(): void {
    this.wake?.();
  }

  async close(): Promise<void> {
    this.wakeAll();
    await this.file?.fh.close();
    this.file = null;
  }

  private async list(): Promise<void> {
    this.bases = (await readdir(this.dir))
      .map((name) => SEGMENT_NAME.exec(name))
      .filter((m) => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
  }

  /** Records of the segment at `base` from `from` on (its file kept open for the next read); null once deleted. */
  private async readAt(base: number, from: number, limit: number, max: number, maxBytes: number) {
    if (this.file?.base !== base) {
      await this.file?.fh.close();
      this.file = null;
      try {
        this.file = { base, fh: await open(segmentPath(this.dir, base), 'r') };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null; // consumed and deleted
        throw err;
      }
    }
    return readRecords(this.file.fh, base, from, limit, max, maxBytes);
  }
}
