/**
 * mulberry32: a small seeded generator, so every run of a given size loads the same dataset and
 * figures from two runs compare. Its period (2^32) is far beyond the ~10^7 draws of a 1M-event
 * load, so identifiers drawn from it do not repeat.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** `weight`-proportional choice. */
  weighted<T extends { weight: number }>(items: readonly T[], total: number): T {
    let r = this.next() * total;
    for (const item of items) {
      r -= item.weight;
      if (r < 0) return item;
    }
    return items[items.length - 1]!;
  }

  private hex32(): string {
    return (this.int(0x100000000) >>> 0).toString(16).padStart(8, '0');
  }

  /** A UUIDv4-shaped id, as the browser logger's `crypto.randomUUID()` session ids look. */
  uuid4(): string {
    const h = this.hex32() + this.hex32() + this.hex32() + this.hex32();
    const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }

  /** A UUIDv7 for `ms` (RFC 9562 §5.7), the shape ingest gives event ids (services/ingest/src/event-id.ts). */
  uuid7(ms: number): string {
    const t = Math.floor(ms).toString(16).padStart(12, '0');
    const h = this.hex32() + this.hex32() + this.hex32();
    const variant = ((parseInt(h[3]!, 16) & 0x3) | 0x8).toString(16);
    return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${h.slice(0, 3)}-${variant}${h.slice(4, 7)}-${h.slice(7, 19)}`;
  }
}
