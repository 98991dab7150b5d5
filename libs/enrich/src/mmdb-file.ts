import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import decoderModule from 'mmdb-lib/lib/decoder.js';
import ipModule from 'mmdb-lib/lib/ip.js';
import { parseMetadata } from 'mmdb-lib/lib/metadata.js';
import type { Metadata } from 'mmdb-lib/lib/metadata.js';
import { LruCache } from './lru-cache.js';

const Decoder = decoderModule.default;
const ip = ipModule.default;

/** The spec's bound on the metadata section: it starts within the file's last 128 KiB. */
const METADATA_MAX_BYTES = 128 * 1024;
/** Between the search tree and the data section (MaxMind DB spec 2.0). */
const DATA_SECTION_SEPARATOR = 16;
const PAGE_BYTES = 4096;

export interface MmdbFileOptions {
  /** Pages of the search tree kept in memory (4 KiB each; default 2,048 = 8 MiB). */
  treePages?: number;
}

/** The metadata of an .mmdb file, read from its tail alone. Throws when it is not one. */
export function readMmdbMetadata(path: string): Metadata {
  const fd = openSync(path, 'r');
  try {
    return metadataOf(fd, fstatSync(fd).size).metadata;
  } finally {
    closeSync(fd);
  }
}

/** "\xAB\xCD\xEFMaxMind.com": where the metadata begins (the last one in the file counts). */
const METADATA_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');

function metadataOf(fd: number, size: number): { metadata: Metadata; tailStart: number; tail: Buffer; end: number } {
  const tailStart = Math.max(0, size - METADATA_MAX_BYTES);
  const tail = Buffer.alloc(size - tailStart);
  readSync(fd, tail, 0, tail.length, tailStart);
  const marker = tail.lastIndexOf(METADATA_MARKER);
  if (marker === -1) throw new Error('not a MaxMind DB file: no metadata marker in its last 128 KiB');
  const metadata = parseMetadata(tail);
  const end = tailStart + marker;
  if (!Number.isInteger(metadata.nodeCount) || metadata.searchTreeSize + DATA_SECTION_SEPARATOR > end) {
    throw new Error('not a MaxMind DB file: its search tree runs past its metadata');
  }
  return { metadata, tailStart, tail, end };
}

/**
 * A MaxMind DB file whose search tree stays on disk: the tree is ~75 % of a city database (103 of
 * the bundled DB-IP pair's 134 MB), and held whole in memory it was a third of the process'
 * memory budget (issue 14, target 5). The data section (records, ~31 MB for the pair) is read into
 * memory once and decoded by mmdb-lib; the walk from the root to an address' record reads the
 * tree's nodes through a bounded cache of 4 KiB pages (the top levels, shared by every lookup,
 * stay in it). A lookup that misses the cache costs a few page reads from the OS' page cache,
 * synchronous like a lookup in memory, and the caller's per-IP cache sits in front of it.
 *
 * Answers exactly what mmdb-lib's `Reader#get` answers on the whole file (tested on both bundled
 * files and on all three record sizes).
 */
export class MmdbFile<T> {
  readonly metadata: Metadata;
  private readonly decoder: InstanceType<typeof Decoder>;
  private readonly pages: LruCache<number, Buffer>;
  private readonly node = Buffer.alloc(8);
  private readonly ipv4Start: number;

  private constructor(
    private readonly fd: number,
    metadata: Metadata,
    data: Buffer,
    treePages: number,
  ) {
    this.metadata = metadata;
    this.decoder = new Decoder(data, 0);
    this.pages = new LruCache(treePages);
    this.ipv4Start = this.findIpv4Start();
  }

  /** Opens `path`; close() releases its file descriptor. */
  static open<T>(path: string, options: MmdbFileOptions = {}): MmdbFile<T> {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const { metadata, tailStart, tail, end } = metadataOf(fd, size);
      // The data section: from the separator after the tree to the metadata marker.
      const dataStart = metadata.searchTreeSize + DATA_SECTION_SEPARATOR;
      const data = Buffer.alloc(end - dataStart);
      const fromFile = Math.max(0, tailStart - dataStart);
      if (fromFile > 0) readSync(fd, data, 0, fromFile, dataStart);
      tail.copy(data, fromFile, Math.max(0, dataStart - tailStart), end - tailStart);
      return new MmdbFile<T>(fd, metadata, data, options.treePages ?? 2048);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** The record for `address`, or null when the file has none (mmdb-lib's `Reader#get`). */
  get(address: string): T | null {
    const raw = ip.parse(address);
    const { nodeCount } = this.metadata;
    const bits = raw.length * 8;
    let node = raw.length === 4 ? this.ipv4Start : 0;
    for (let depth = 0; depth < bits && node < nodeCount; depth++) {
      node = this.child(node, ip.bitAt(raw, depth));
    }
    if (node <= nodeCount) return null;
    return this.decoder.decodeFast(node - nodeCount - DATA_SECTION_SEPARATOR).value as T;
  }

  close(): void {
    closeSync(this.fd);
  }

  /** In an IPv6 tree, IPv4 addresses live under 96 zero bits (spec: "IPv4 addresses in an IPv6 tree"). */
  private findIpv4Start(): number {
    if (this.metadata.ipVersion === 4) return 0;
    let node = 0;
    for (let i = 0; i < 96 && node < this.metadata.nodeCount; i++) node = this.child(node, 0);
    return node;
  }

  /** The left (bit 0) or right (bit 1) record of a node. */
  private child(node: number, bit: number): number {
    const size = this.metadata.nodeByteSize;
    const b = this.readNode(node * size, size);
    switch (this.metadata.recordSize) {
      case 24:
        return bit ? (b[3]! << 16) | (b[4]! << 8) | b[5]! : (b[0]! << 16) | (b[1]! << 8) | b[2]!;
      case 28:
        return bit
          ? ((b[3]! & 0x0f) << 24) | (b[4]! << 16) | (b[5]! << 8) | b[6]!
          : ((b[3]! & 0xf0) << 20) | (b[0]! << 16) | (b[1]! << 8) | b[2]!;
      default:
        return bit ? b.readUInt32BE(4) : b.readUInt32BE(0);
    }
  }

  /** A node's bytes; a node may straddle two pages. */
  private readNode(offset: number, size: number): Buffer {
    for (let i = 0; i < size;) {
      const at = offset + i;
      const page = this.page(Math.floor(at / PAGE_BYTES));
      const from = at % PAGE_BYTES;
      const n = Math.min(size - i, PAGE_BYTES - from);
      page.copy(this.node, i, from, from + n);
      i += n;
    }
    return this.node;
  }

  private page(number: number): Buffer {
    let page = this.pages.get(number);
    if (page === undefined) {
      page = Buffer.allocUnsafeSlow(PAGE_BYTES);
      readSync(this.fd, page, 0, PAGE_BYTES, number * PAGE_BYTES);
      this.pages.set(number, page);
    }
    return page;
  }
}
