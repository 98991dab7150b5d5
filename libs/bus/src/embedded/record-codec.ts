import { crc32 } from 'node:zlib';

// Framing of one record in a segment file:
//   u32 body length | u32 crc32(body) | body = u16 key length | key bytes | value bytes
// The CRC lets recovery find a torn tail (a write cut by power loss) and cut the log there.
export const HEADER_BYTES = 8;

export interface DecodedRecord {
  /** Position of the record's first byte within the buffer. */
  at: number;
  /** Total bytes taken, header included. */
  size: number;
  key: string;
  value: string;
}

export function encodeRecord(key: string, value: string): Buffer {
  const keyBytes = Buffer.from(key, 'utf8');
  const valueBytes = Buffer.from(value, 'utf8');
  const bodyLength = 2 + keyBytes.length + valueBytes.length;
  const buf = Buffer.allocUnsafe(HEADER_BYTES + bodyLength);
  buf.writeUInt32BE(bodyLength, 0);
  buf.writeUInt16BE(keyBytes.length, HEADER_BYTES);
  keyBytes.copy(buf, HEADER_BYTES + 2);
  valueBytes.copy(buf, HEADER_BYTES + 2 + keyBytes.length);
  buf.writeUInt32BE(crc32(buf.subarray(HEADER_BYTES)), 4);
  return buf;
}

export type DecodeOutcome =
  | { kind: 'record'; record: DecodedRecord }
  | { kind: 'incomplete'; needBytes: number }
  | { kind: 'corrupt' };

/** Decodes the record starting at `at`, or says how many bytes a complete one needs. */
export function decodeRecord(buf: Buffer, at: number): DecodeOutcome {
  if (buf.length - at < HEADER_BYTES) return { kind: 'incomplete', needBytes: HEADER_BYTES };
  const bodyLength = buf.readUInt32BE(at);
  if (bodyLength < 2) return { kind: 'corrupt' };
  const size = HEADER_BYTES + bodyLength;
  if (buf.length - at < size) return { kind: 'incomplete', needBytes: size };
  const body = buf.subarray(at + HEADER_BYTES, at + size);
  if (crc32(body) !== buf.readUInt32BE(at + 4)) return { kind: 'corrupt' };
  const keyLength = body.readUInt16BE(0);
  if (2 + keyLength > body.length) return { kind: 'corrupt' };
  return {
    kind: 'record',
    record: {
      at,
      size,
      key: body.toString('utf8', 2, 2 + keyLength),
      value: body.toString('utf8', 2 + keyLength),
    },
  };
}
