import { writeSync } from 'node:fs';
import { mkdir, open, readdir, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { GroupCommit } from '../group-commit.js';
import type { OutgoingMessage } from '../bus.js';
import { decodeRecord, encodeRecords, type DecodedRecord } from './record-codec.js';

/** One append's messages, framed (record-codec.ts), and kept as messages only for a tail. */
interface Framed {
  buf: Buffer;
  sizes: number[];
  tail: OutgoingMessage[] | null;
}

/** Appends per write: each is one request's messages (a batch holds at most 500). */
const MAX_FRAMES_PER_WRITE = 1_000;

interface Segment {
  base: number;
  size: number;
  path: string;
  /** When its first record was written (ms, the log's clock): it rolls at `rollMs` after. */
  created: number;
  /** When its newest record was written (ms): the file's mtime after a restart. */
  newest: number;
}

export interface ReadResult {
  records: Array<DecodedRecord & { offset: number }>;
  next: number;
}

/**
 * Bytes of the newest records kept in memory (issue 14): a consumer that keeps up reads them
 * without opening a file, reading it back or checking CRCs of bytes this process just wrote.
 * One that falls further behind reads the files, as after a restart.
 */
const TAIL_BYTES = 32 * 1024 * 1024;

/**
 * Record offsets kept in memory (8 bytes each), far beyond the values: lag is the number of
 * records between two offsets, and counting them from the files on every health poll read the
 * whole backlog each time.
 */
const INDEX_RECORDS = 1_000_000;

/** The whole records at the start of `buf`, read from the log at `base`: at most `max`. */
function decodeChunk(buf: Buffer, base: number, max: number): ReadResult {
  const records: ReadResult['records'] = [];
  let at = 0;
  while (records.length < max) {
    const out = decodeRecord(buf, at);
    if (out.kind !== 'record') break;
    const record = out.record as DecodedRecord & { offset: number };
    record.offset = base + at;
    records.push(record);
    at += out.record.size;
  }
  return { records, next: base + at };
}

/**
 * Whole records of the segment file `fh` (whose first record is at log offset `base`) from log
 * offset `from` on: at most `max`, about `maxBytes` read, more only for one larger record, never
 * more than `available` bytes. The log's own reads and a LogFollower's share it.
 */
export async function readRecords(
  fh: FileHandle,
  base: number,
  from: number,
  available: number,
  max: number,
  maxBytes: number,
): Promise<ReadResult> {
  let length = Math.min(available, maxBytes);
  for (;;) {
    const buf = Buffer.allocUnsafe(length);
    const { bytesRead } = await fh.read(buf, 0, length, from - base);
    const result = decodeChunk(buf.subarray(0, bytesRead), from, max);
    if (result.records.length > 0 || bytesRead < length || length >= available) return result;
    length = Math.min(available, length * 4); // one record larger than the chunk
  }
}

async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export const SEGMENT_NAME = /^(\d{20})\.log$/;
export const segmentPath = (dir: string, base: number) => join(dir, `${String(base).padStart(20, '0')}.log`);

/**
 * When the log's bytes are forced to the disk (SPOOR_BUS_FSYNC, issue 16). An append always
 * resolves after its bytes reached the kernel, which is enough for a killed process. Against a
 * power loss: `always` resolves it only after an fdatasync (one per group commit, not per
 * event); `interval` syncs in the background every `fsyncIntervalMs`, so at most that much
 * acknowledged data is at risk; `never` leaves it to the kernel (tens of seconds).
 */
export type FsyncMode = 'always' | 'interval' | 'never';

export interface TopicLogOptions {
  segmentBytes: number;
  fsync: FsyncMode;
  /** `interval`'s period; default 1,000 ms. */
  fsyncIntervalMs?: number;
  tailBytes?: number;
  /**
   * Age of the active segment at which it is closed and a new one begun (issue 43): only a
   * closed segment can go, so a quiet log must roll by time or keep its raw events for as long
   * as it takes to fill `segmentBytes` (months, on a small site). Default: never.
   */
  rollMs?: number;
  /** Passed in, so tests move time forward without waiting; default Date.now. */
  clock?: () => number;
}

/**
 * An append-only log for one topic, in segment files named by the byte offset they start at.
 * An append resolves only after its bytes reached the kernel (and the disk, with `fsync:
 * 'always'`), so a SIGKILL never loses an acknowledged record; concurrent appends share one
 * write (GroupCommit).
 */
export class TopicLog {
  private segments: Segment[] = [];
  private active: FileHandle | null = null;
  private waiters: Array<() => void> = [];
  /** Start offset of each record appended since open, oldest first from `indexHead`. */
  private offsets: number[] = [];
  /** The records' key and value, aligned with `offsets`; dropped (undefined) before `valuesHead`. */
  private values: Array<{ key: string; value: string; headers?: Record<string, string> } | undefined> = [];
  private indexHead = 0;
  private valuesHead = 0;
  private valueBytes = 0;
  /** Consumers reading this log on this thread (holdTail): without any, no value is kept. */
  private tailReaders = 0;
  /** The last count() that read files, reused by the next one. */
  private counted: { from: number; to: number; n: number } | null = null;
  private readonly writer: GroupCommit<Framed>;
  /** Offset up to which the log is known to be on the disk (see `synced`). */
  private syncedTo = 0;
  private syncing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** `end`, shared with readers on other threads (LogFollower); null until one asks. */
  private endCell: BigInt64Array | null = null;

  /** A roll by time (expire) must not run beside a write: each waits for the other. */
  private exclusive: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly dir: string,
    private readonly segmentBytes: number,
    private readonly fsync: FsyncMode,
    private readonly tailBytes: number,
    private readonly rollMs: number,
    private readonly clock: () => number,
  ) {
    this.writer = new GroupCommit((items) => this.serially(() => this.write(items)), MAX_FRAMES_PER_WRITE);
  }

  static async open(dir: string, opts: TopicLogOptions): Promise<TopicLog> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const log = new TopicLog(
      dir,
      opts.segmentBytes,
      opts.fsync,
      opts.tailBytes ?? TAIL_BYTES,
      opts.rollMs ?? Infinity,
      opts.clock ?? Date.now,
    );
    await log.recover();
    if (opts.fsync !== 'never') {
      await log.active?.datasync();
      log.syncedTo = log.end;
    }
    if (opts.fsync === 'interval') log.timer = setInterval(() => void log.sync(), opts.fsyncIntervalMs ?? 1000).unref();
    return log;
  }

  /**
   * Offset up to which every record is known to be on the disk, not only in the kernel: what a
   * power loss leaves at least. With `always` it is `end` whenever no append is in flight;
   * with `never` it does not move after open.
   */
  get synced(): number {
    return this.syncedTo;
  }

  /** Forces what was appended so far to the disk (the `interval` timer; close). */
  private sync(): Promise<void> {
    if (this.syncing) return this.syncing;
    const fh = this.active;
    const target = this.end;
    if (!fh || target <= this.syncedTo) return Promise.resolve();
    this.syncing = fh
      .datasync()
      .then(
        () => void (this.syncedTo = Math.max(this.syncedTo, target)),
        () => undefined, // closed meanwhile: roll() and close() sync themselves
      )
      .finally(() => (this.syncing = null));
    return this.syncing;
  }

  /** The folder of the topic's segment files. */
  get directory(): string {
    return this.dir;
  }

  /**
   * A cell holding `end`, updated after every write (and Atomics.notify'd): a LogFollower on
   * another thread reads the files up to it, and waits on it for more.
   */
  shareEnd(): SharedArrayBuffer {
    if (!this.endCell) {
      this.endCell = new BigInt64Array(new SharedArrayBuffer(8));
      Atomics.store(this.endCell, 0, BigInt(this.end));
    }
    return this.endCell.buffer as SharedArrayBuffer;
  }

  /**
   * Keeps the newest records' values in memory for a consumer on this thread, until the returned
   * function is called. A log no consumer here reads (ingest alone; the all-in-one process, whose
   * consumers follow the files from the pipeline thread) keeps only their offsets (issue 14).
   */
  holdTail(): () => void {
    this.tailReaders++;
    let held = true;
    return () => {
      if (held) this.tailReaders--;
      held = false;
    };
  }

  /** First offset still stored. */
  get start(): number {
    return this.segments[0]?.base ?? 0;
  }

  /** Offset after the last acknowledged record. */
  get end(): number {
    const last = this.segments[this.segments.length - 1];
    return last ? last.base + last.size : 0;
  }

  /**
   * `timeoutMs`: see GroupCommit.add (a disk that stops answering must not hold requests). The
   * messages are framed at once, so only their bytes wait for the write, outside the heap: a
   * request's strings die young however long the disk takes (issue 14). They are kept only for
   * a tail.
   */
  append(messages: OutgoingMessage[], timeoutMs?: number): Promise<void> {
    const { buf, sizes } = encodeRecords(messages);
    return this.writer.add([{ buf, sizes, tail: this.tailReaders > 0 ? messages : null }], timeoutMs);
  }

  /** Reads whole records from `from` on, at most `max` of them and about `maxBytes`. */
  async read(from: number, max: number, maxBytes = 4 << 20): Promise<ReadResult> {
    const offset = Math.max(from, this.start);
    const cached = this.readTail(offset, max, maxBytes);
    if (cached) return cached;
    const seg = this.segments.find((s) => offset >= s.base && offset < s.base + s.size);
    if (!seg) return { records: [], next: offset };
    const available = seg.base + seg.size - offset;
    const fh = await open(seg.path, 'r');
    try {
      return await readRecords(fh, seg.base, offset, available, max, maxBytes);
    } finally {
      await fh.close();
    }
  }

  /**
   * Records between two record boundaries: from the in-memory index when it reaches back to
   * `from`; else from the files, but only once: the next call (a consumer further on, more
   * appended) reads just what lies between this call's bounds and its own.
   */
  async count(from: number, to: number): Promise<number> {
    const indexed = this.countIndexed(from, to);
    if (indexed !== null) return indexed;
    const c = this.counted;
    // Reuse the last count while what it counted from is still on disk (consumed segments go).
    const n =
      c && c.from >= this.start && from >= c.from && from <= c.to && to >= c.to
        ? c.n -
          (await this.countFromFiles(c.from, from)) +
          (this.countIndexed(c.to, to) ?? (await this.countFromFiles(c.to, to)))
        : await this.countFromFiles(from, to);
    this.counted = { from, to, n };
    return n;
  }

  private countIndexed(from: number, to: number): number | null {
    if (from >= to) return 0;
    const first = this.indexOf(from);
    if (first === -1) return null;
    const last = to >= this.end ? this.offsets.length : this.indexOf(to);
    return last === -1 ? null : last - first;
  }

  private async countFromFiles(from: number, to: number): Promise<number> {
    let count = 0;
    for (let at = from; at < to;) {
      const { records, next } = await this.read(at, 10_000);
      if (records.length === 0) break;
      // A read returns whole chunks: count only what lies before `to`.
      for (const r of records) if (r.offset < to) count++;
      at = next;
    }
    return count;
  }

  /** Resolves on the next append (or at once if records beyond `offset` exist). */
  waitForData(offset: number): Promise<void> {
    if (this.end > offset) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Wakes every waiter, e.g. so that a stopping consumer leaves its wait. */
  wakeAll(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Deletes whole segments that end at or before `offset` (every group has consumed them). */
  async deleteBelow(offset: number): Promise<void> {
    while (this.segments.length > 1 && this.segments[0]!.base + this.segments[0]!.size <= offset) {
      const seg = this.segments.shift()!;
      await rm(seg.path, { force: true });
    }
    this.forgetBefore(this.start);
  }

  /**
   * The bus' retention tick (issue 43): closes the active segment once it is `rollMs` old, so
   * that an idle log's last records can go too, then deletes what every group consumed (below
   * `consumed`; nothing when no group is known). Answers the segments kept although their
   * newest record is older than `keepMs`: unconsumed, which is never deleted.
   */
  async expire(consumed: number | null, keepMs: number): Promise<Array<{ base: number; newest: number }>> {
    await this.serially(async () => {
      const active = this.segments[this.segments.length - 1];
      if (this.active && active && active.size > 0 && this.clock() - active.created >= this.rollMs) await this.roll();
    });
    if (consumed !== null) await this.deleteBelow(consumed);
    const cutoff = this.clock() - keepMs;
    return this.segments.filter((s) => s.size > 0 && s.newest < cutoff).map(({ base, newest }) => ({ base, newest }));
  }

  async close(): Promise<void> {
    this.wakeAll();
    clearInterval(this.timer);
    await this.exclusive;
    await this.syncing;
    if (this.fsync !== 'never' && this.active) {
      await this.active.datasync();
      this.syncedTo = this.end;
    }
    await this.active?.close();
    this.active = null;
  }

  /** Runs `work` after whatever write or roll is under way, and before the next. */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.exclusive.then(work);
    this.exclusive = run.catch(() => undefined);
    return run;
  }

  /** Drops the in-memory index and values of records deleted from the disk: no copy outlives its file. */
  private forgetBefore(offset: number): void {
    while (this.indexHead < this.offsets.length && this.offsets[this.indexHead]! < offset) this.indexHead++;
    while (this.valuesHead < this.indexHead) {
      const r = this.values[this.valuesHead];
      if (r) {
        const next = this.offsets[this.valuesHead + 1] ?? this.end;
        this.valueBytes -= next - this.offsets[this.valuesHead]! + r.value.length;
      }
      this.values[this.valuesHead++] = undefined;
    }
    if (this.counted && this.counted.from < offset) this.counted = null;
  }

  /** Index in `offsets` of the record starting at `offset`, or -1 when the index does not reach it. */
  private indexOf(offset: number): number {
    let lo = this.indexHead;
    let hi = this.offsets.length - 1;
    if (hi < lo || offset < this.offsets[lo]! || offset > this.offsets[hi]!) return -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.offsets[mid]!;
      if (at === offset) return mid;
      if (at < offset) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private readTail(offset: number, max: number, maxBytes: number): ReadResult | null {
    const first = this.indexOf(offset);
    if (first === -1 || first < this.valuesHead) return null;
    const records: ReadResult['records'] = [];
    let bytes = 0;
    for (let i = first; i < this.offsets.length && records.length < max; i++) {
      const at = this.offsets[i]!;
      const size = (i + 1 < this.offsets.length ? this.offsets[i + 1]! : this.end) - at;
      if (bytes > 0 && bytes + size > maxBytes) break;
      const { key, value, headers } = this.values[i]!;
      records.push({ at: 0, size, key, value, headers, offset: at });
      bytes += size;
    }
    const last = records[records.length - 1]!;
    return { records, next: last.offset + last.size };
  }

  /** Offsets of the records just written (their sizes), and their values when `tail` holds them. */
  private remember(base: number, tail: OutgoingMessage[] | null, sizes: number[]): void {
    let offset = base;
    for (let i = 0; i < sizes.length; i++) {
      const m = tail?.[i];
      this.offsets.push(offset);
      this.values.push(m && { key: m.key, value: m.value, headers: m.headers });
      if (m) this.valueBytes += sizes[i]! + m.value.length;
      offset += sizes[i]!;
    }
    if (!tail) {
      while (this.valuesHead < this.values.length) this.values[this.valuesHead++] = undefined;
      this.valueBytes = 0;
    }
    if (this.offsets.length - this.indexHead > INDEX_RECORDS) this.indexHead = this.offsets.length - INDEX_RECORDS;
    while (
      (this.valueBytes > this.tailBytes || this.valuesHead < this.indexHead) &&
      this.valuesHead < this.values.length
    ) {
      const r = this.values[this.valuesHead]!;
      this.valueBytes -=
        (this.offsets[this.valuesHead + 1] ?? offset) - this.offsets[this.valuesHead]! + r.value.length;
      this.values[this.valuesHead++] = undefined;
    }
    // Compact now and then rather than shift() at every drop.
    if (this.indexHead > 65_536 && this.indexHead * 2 > this.offsets.length) {
      this.offsets = this.offsets.slice(this.indexHead);
      this.values = this.values.slice(this.indexHead);
      this.valuesHead -= this.indexHead;
      this.indexHead = 0;
    }
  }

  private async write(frames: Framed[]): Promise<void> {
    const buf = frames.length === 1 ? frames[0]!.buf : Buffer.concat(frames.map((f) => f.buf));
    const sizes = frames.length === 1 ? frames[0]!.sizes : frames.flatMap((f) => f.sizes);
    // Values for the tail only if every frame kept them (a consumer here may have just begun).
    const tail = frames.every((f) => f.tail) ? frames.flatMap((f) => f.tail!) : null;
    let seg = this.segments[this.segments.length - 1]!;
    const now = this.clock();
    if (seg.size > 0 && (seg.size + buf.length > this.segmentBytes || now - seg.created >= this.rollMs))
      seg = await this.roll();
    if (seg.size === 0) seg.created = now;
    const fh = this.active!;
    // A write into the page cache, on this thread: a few µs of syscall, where the same write
    // handed to libuv's pool cost ~40 µs more of the process' CPU in hand-offs and wake-ups, a
    // tenth of what a single event cost at 1,000 requests/s (issue 41). Each request now gets a
    // write of its own; with SPOOR_BUS_FSYNC=always those that arrive during a datasync still
    // share the next one (GroupCommit). What reaches the disk is the fsync's business as before.
    let written = 0;
    while (written < buf.length) written += writeSync(fh.fd, buf, written, buf.length - written, seg.size + written);
    if (this.fsync === 'always') await fh.datasync();
    this.remember(seg.base + seg.size, tail, sizes);
    seg.size += buf.length;
    seg.newest = now;
    if (this.fsync === 'always') this.syncedTo = this.end;
    this.wakeAll();
    if (this.endCell) {
      Atomics.store(this.endCell, 0, BigInt(this.end));
      Atomics.notify(this.endCell, 0);
    }
  }

  private async roll(): Promise<Segment> {
    const base = this.end;
    if (this.active && this.fsync !== 'never') {
      // The segment being closed is complete: on the disk before the next one starts.
      await this.syncing;
      await this.active.datasync();
      this.syncedTo = base;
    }
    await this.active?.close();
    const now = this.clock();
    const seg: Segment = { base, size: 0, path: segmentPath(this.dir, base), created: now, newest: now };
    this.active = await open(seg.path, 'w+', 0o600);
    // The new file's name must survive a power loss too, or its records would vanish with it.
    if (this.fsync !== 'never') await syncDir(this.dir);
    this.segments.push(seg);
    return seg;
  }

  /** Loads the segment list and cuts a torn tail off the last segment. */
  private async recover(): Promise<void> {
    const names = (await readdir(this.dir)).filter((n) => SEGMENT_NAME.test(n)).sort();
    for (const name of names) {
      const base = Number(SEGMENT_NAME.exec(name)![1]);
      const path = join(this.dir, name);
      // Times from before the restart: the file's last write; its birth, where the file system keeps one.
      const { mtimeMs, birthtimeMs } = await stat(path);
      const created = birthtimeMs > 0 ? Math.min(birthtimeMs, mtimeMs) : mtimeMs;
      this.segments.push({ base, size: 0, path, created, newest: mtimeMs });
    }
    if (this.segments.length === 0) {
      await this.roll();
      return;
    }
    for (const seg of this.segments.slice(0, -1)) {
      const fh = await open(seg.path, 'r');
      seg.size = (await fh.stat()).size;
      await fh.close();
    }
    const last = this.segments[this.segments.length - 1]!;
    this.active = await open(last.path, 'r+');
    last.size = await this.validLength(this.active);
    await this.active.truncate(last.size);
  }

  private async validLength(fh: FileHandle): Promise<number> {
    const { size } = await fh.stat();
    const buf = Buffer.allocUnsafe(size);
    // One read may return fewer bytes than asked; what it left unread would decode as garbage
    // and the recovery would cut acknowledged records off.
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await fh.read(buf, filled, size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const read = buf.subarray(0, filled);
    let at = 0;
    for (;;) {
      const out = decodeRecord(read, at);
      if (out.kind !== 'record') return at;
      at += out.record.size;
    }
  }
}
