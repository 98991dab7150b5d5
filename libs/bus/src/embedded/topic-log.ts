import { mkdir, open, readdir, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { GroupCommit } from '../group-commit.js';
import type { OutgoingMessage } from '../bus.js';
import { decodeRecord, encodeRecord, type DecodedRecord } from './record-codec.js';

interface Segment {
  base: number;
  size: number;
  path: string;
}

export interface ReadResult {
  records: Array<DecodedRecord & { offset: number }>;
  next: number;
}

/** A record as appended, kept in memory for consumers that keep up. */
interface TailRecord {
  offset: number;
  size: number;
  key: string;
  value: string;
}

/**
 * Bytes of the newest records kept in memory (issue 14): a consumer that keeps up reads them
 * without opening a file, reading it back or checking CRCs of bytes this process just wrote.
 * One that falls further behind reads the files, as after a restart.
 */
const TAIL_BYTES = 32 * 1024 * 1024;

const SEGMENT_NAME = /^(\d{20})\.log$/;
const segmentPath = (dir: string, base: number) => join(dir, `${String(base).padStart(20, '0')}.log`);

/**
 * An append-only log for one topic, in segment files named by the byte offset they start at.
 * An append resolves only after its bytes reached the kernel (and the disk, with `fsync`), so a
 * SIGKILL never loses an acknowledged record; concurrent appends share one write (GroupCommit).
 */
export class TopicLog {
  private segments: Segment[] = [];
  private active: FileHandle | null = null;
  private waiters: Array<() => void> = [];
  private tail: TailRecord[] = [];
  private tailHead = 0;
  private tailBytes = 0;
  private readonly writer: GroupCommit<OutgoingMessage>;

  private constructor(
    private readonly dir: string,
    private readonly segmentBytes: number,
    private readonly fsync: boolean,
  ) {
    this.writer = new GroupCommit((items) => this.write(items), 10_000);
  }

  static async open(dir: string, opts: { segmentBytes: number; fsync: boolean }): Promise<TopicLog> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const log = new TopicLog(dir, opts.segmentBytes, opts.fsync);
    await log.recover();
    return log;
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

  append(messages: OutgoingMessage[]): Promise<void> {
    return this.writer.add(messages);
  }

  /** Reads whole records from `from` on, at most `max` of them and about `maxBytes`. */
  async read(from: number, max: number, maxBytes = 1 << 20): Promise<ReadResult> {
    const offset = Math.max(from, this.start);
    const cached = this.readTail(offset, max, maxBytes);
    if (cached) return cached;
    const seg = this.segments.find((s) => offset >= s.base && offset < s.base + s.size);
    if (!seg) return { records: [], next: offset };
    const available = seg.base + seg.size - offset;
    const fh = await open(seg.path, 'r');
    try {
      let length = Math.min(available, maxBytes);
      for (;;) {
        const buf = Buffer.allocUnsafe(length);
        const { bytesRead } = await fh.read(buf, 0, length, offset - seg.base);
        const result = this.decodeChunk(buf.subarray(0, bytesRead), offset, max);
        if (result.records.length > 0 || length >= available) return result;
        length = Math.min(available, length * 4); // one record larger than the chunk
      }
    } finally {
      await fh.close();
    }
  }

  /** Records between two record boundaries, from memory when the tail holds them. */
  async count(from: number, to: number): Promise<number> {
    const first = this.tailIndex(from);
    if (first !== -1) {
      const last = to >= this.end ? this.tail.length : this.tailIndex(to);
      if (last !== -1) return last - first;
    }
    let count = 0;
    for (let at = from; at < to; ) {
      const { records, next } = await this.read(at, 10_000);
      if (records.length === 0) break;
      count += records.length;
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
  }

  async close(): Promise<void> {
    this.wakeAll();
    await this.active?.close();
    this.active = null;
  }

  /** Index in `tail` of the record starting at `offset`, or -1 when the tail does not hold it. */
  private tailIndex(offset: number): number {
    let lo = this.tailHead;
    let hi = this.tail.length - 1;
    if (hi < lo || offset < this.tail[lo]!.offset || offset > this.tail[hi]!.offset) return -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.tail[mid]!.offset;
      if (at === offset) return mid;
      if (at < offset) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private readTail(offset: number, max: number, maxBytes: number): ReadResult | null {
    const first = this.tailIndex(offset);
    if (first === -1) return null;
    const records: ReadResult['records'] = [];
    let bytes = 0;
    for (let i = first; i < this.tail.length && records.length < max && (bytes === 0 || bytes + this.tail[i]!.size <= maxBytes); i++) {
      const r = this.tail[i]!;
      records.push({ at: 0, size: r.size, key: r.key, value: r.value, offset: r.offset });
      bytes += r.size;
    }
    const last = records[records.length - 1]!;
    return { records, next: last.offset + last.size };
  }

  private remember(base: number, messages: OutgoingMessage[], sizes: number[]): void {
    let offset = base;
    messages.forEach((m, i) => {
      this.tail.push({ offset, size: sizes[i]!, key: m.key, value: m.value });
      offset += sizes[i]!;
      this.tailBytes += sizes[i]! + m.value.length;
    });
    while (this.tailBytes > TAIL_BYTES && this.tailHead < this.tail.length) {
      const r = this.tail[this.tailHead++]!;
      this.tailBytes -= r.size + r.value.length;
    }
    // Compact now and then rather than shift() at every drop.
    if (this.tailHead > 4096 && this.tailHead * 2 > this.tail.length) {
      this.tail = this.tail.slice(this.tailHead);
      this.tailHead = 0;
    }
  }

  private decodeChunk(buf: Buffer, base: number, max: number): ReadResult {
    const records: ReadResult['records'] = [];
    let at = 0;
    while (records.length < max) {
      const out = decodeRecord(buf, at);
      if (out.kind !== 'record') break;
      records.push({ ...out.record, offset: base + at });
      at += out.record.size;
    }
    return { records, next: base + at };
  }

  private async write(messages: OutgoingMessage[]): Promise<void> {
    const encoded = messages.map((m) => encodeRecord(m.key, m.value));
    const buf = Buffer.concat(encoded);
    let seg = this.segments[this.segments.length - 1]!;
    if (seg.size > 0 && seg.size + buf.length > this.segmentBytes) seg = await this.roll();
    const fh = this.active!;
    let written = 0;
    while (written < buf.length) {
      const { bytesWritten } = await fh.write(buf, written, buf.length - written, seg.size + written);
      written += bytesWritten;
    }
    if (this.fsync) await fh.datasync();
    this.remember(seg.base + seg.size, messages, encoded.map((b) => b.length));
    seg.size += buf.length;
    this.wakeAll();
  }

  private async roll(): Promise<Segment> {
    const base = this.end;
    await this.active?.close();
    const seg = { base, size: 0, path: segmentPath(this.dir, base) };
    this.active = await open(seg.path, 'w+', 0o600);
    this.segments.push(seg);
    return seg;
  }

  /** Loads the segment list and cuts a torn tail off the last segment. */
  private async recover(): Promise<void> {
    const names = (await readdir(this.dir)).filter((n) => SEGMENT_NAME.test(n)).sort();
    for (const name of names) {
      const base = Number(SEGMENT_NAME.exec(name)![1]);
      this.segments.push({ base, size: 0, path: join(this.dir, name) });
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
    await fh.read(buf, 0, size, 0);
    let at = 0;
    for (;;) {
      const out = decodeRecord(buf, at);
      if (out.kind !== 'record') return at;
      at += out.record.size;
    }
  }
}
