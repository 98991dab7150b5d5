/**
 * Writes tiny MaxMind DB files for tests, following the MaxMind DB File Format Spec 2.0
 * (https://maxmind.github.io/MaxMind-DB/). No GeoIP2/GeoLite2 file can be shipped in the
 * repository (licence), yet the GeoIP2 branch of geo-lookup needs one, so we build one.
 * Supports what fixtures need: IPv4 networks, 24-, 28- or 32-bit records, strings, numbers, maps,
 * arrays.
 */
import { isIPv4 } from 'node:net';

export interface FixtureNetwork {
  /** IPv4 CIDR, e.g. "81.2.69.0/24". */
  cidr: string;
  record: unknown;
}

export interface FixtureOptions {
  databaseType: string;
  ipVersion: 4 | 6;
  networks: FixtureNetwork[];
  /** Bits per record (default 24). */
  recordSize?: 24 | 28 | 32;
}

const TYPE = { utf8: 2, double: 3, uint16: 5, uint32: 6, map: 7, array: 11, boolean: 14 } as const;

function control(type: number, size: number): Buffer {
  const head = type <= 7 ? [type << 5] : [0, type - 7];
  const sizeBytes: number[] = [];
  let bits: number;
  if (size < 29) bits = size;
  else if (size < 285) [bits, sizeBytes[0]] = [29, size - 29];
  else if (size < 65_821) [bits, sizeBytes[0], sizeBytes[1]] = [30, (size - 285) >> 8, (size - 285) & 255];
  else throw new RangeError('fixture value too large');
  head[0] = (head[0] ?? 0) | bits;
  // Extended types put the size bits in the first byte and the type in the second.
  return Buffer.from([...head, ...sizeBytes]);
}

export function encodeValue(value: unknown): Buffer {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([control(TYPE.utf8, bytes.length), bytes]);
  }
  if (typeof value === 'boolean') return control(TYPE.boolean, value ? 1 : 0);
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0 && value < 2 ** 32) {
      const width = value < 2 ** 16 ? 2 : 4;
      const bytes = Buffer.alloc(width);
      bytes.writeUIntBE(value, 0, width);
      return Buffer.concat([control(width === 2 ? TYPE.uint16 : TYPE.uint32, width), bytes]);
    }
    const bytes = Buffer.alloc(8);
    bytes.writeDoubleBE(value);
    return Buffer.concat([control(TYPE.double, 8), bytes]);
  }
  if (Array.isArray(value)) return Buffer.concat([control(TYPE.array, value.length), ...value.map(encodeValue)]);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    return Buffer.concat([
      control(TYPE.map, entries.length),
      ...entries.flatMap(([k, v]) => [encodeValue(k), encodeValue(v)]),
    ]);
  }
  throw new TypeError(`fixture cannot encode ${String(value)}`);
}

/** The bits of a network's prefix, IPv4 placed at ::a.b.c.d in an IPv6 tree (spec: IPv4 in IPv6). */
function prefixBits(cidr: string, ipVersion: 4 | 6): number[] {
  const [address = '', length = '32'] = cidr.split('/');
  if (!isIPv4(address)) throw new TypeError(`fixture networks are IPv4: ${cidr}`);
  const octets = address.split('.').map(Number);
  const bits = octets.flatMap((octet) => [7, 6, 5, 4, 3, 2, 1, 0].map((i) => (octet >> i) & 1));
  const lead = ipVersion === 6 ? new Array<number>(96).fill(0) : [];
  return [...lead, ...bits.slice(0, Number(length))];
}

type Slot = { node: number } | { data: number } | null;

function buildTree(networks: FixtureNetwork[], ipVersion: 4 | 6): { nodes: Array<[Slot, Slot]>; data: Buffer } {
  const nodes: Array<[Slot, Slot]> = [[null, null]];
  const chunks: Buffer[] = [];
  let offset = 0;
  for (const { cidr, record } of networks) {
    const encoded = encodeValue(record);
    chunks.push(encoded);
    const bits = prefixBits(cidr, ipVersion);
    let current = 0;
    bits.forEach((bit, i) => {
      const node = nodes[current] as [Slot, Slot];
      if (i === bits.length - 1) return void (node[bit as 0 | 1] = { data: offset });
      const slot = node[bit as 0 | 1];
      if (slot !== null && 'node' in slot) return void (current = slot.node);
      nodes.push([null, null]);
      current = nodes.length - 1;
      node[bit as 0 | 1] = { node: current };
    });
    offset += encoded.length;
  }
  return { nodes, data: Buffer.concat(chunks) };
}

/** A complete .mmdb file: search tree, 16-byte separator, data section, metadata. */
export function writeMmdb(options: FixtureOptions): Buffer {
  const { nodes, data } = buildTree(options.networks, options.ipVersion);
  const count = nodes.length;
  // Record values: < count a node, == count "not found", > count a data pointer (spec §tree).
  const value = (slot: Slot): number => (slot === null ? count : 'node' in slot ? slot.node : count + 16 + slot.data);
  const recordSize = options.recordSize ?? 24;
  const nodeBytes = recordSize / 4;
  const tree = Buffer.alloc(count * nodeBytes);
  nodes.forEach(([l, r], i) => {
    const [left, right, at] = [value(l), value(r), i * nodeBytes];
    if (recordSize === 32) {
      tree.writeUInt32BE(left, at);
      tree.writeUInt32BE(right, at + 4);
    } else if (recordSize === 28) {
      // The middle byte holds the top four bits of each record: the left's high, the right's low.
      tree.writeUIntBE(left & 0xffffff, at, 3);
      tree[at + 3] = ((left >>> 24) << 4) | (right >>> 24);
      tree.writeUIntBE(right & 0xffffff, at + 4, 3);
    } else {
      tree.writeUIntBE(left, at, 3);
      tree.writeUIntBE(right, at + 3, 3);
    }
  });
  const metadata = encodeValue({
    node_count: count,
    record_size: recordSize,
    ip_version: options.ipVersion,
    database_type: options.databaseType,
    languages: ['en'],
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: 1_700_000_000,
    description: { en: 'Spoor test fixture' },
  });
  const marker = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');
  return Buffer.concat([tree, Buffer.alloc(16), data, marker, metadata]);
}
