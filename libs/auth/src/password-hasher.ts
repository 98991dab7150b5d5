// Password hashing with scrypt (RFC 7914) from node:crypto, no native add-on needed.
// Stored form: `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`, salt and hash in unpadded base64 as in
// the PHC string format, so the cost can be raised later without breaking old hashes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { normalizePassword } from './credential-rules.js';

// N = 2^15, r = 8, p = 1: about 32 MiB and 50-100 ms per hash; N is twice the "interactive
// login" cost of the scrypt paper (Percival 2009: N = 2^14, r = 8, p = 1).
// OWASP's Password Storage Cheat Sheet asks for more (N = 2^17, or N = 2^15 with p = 3): the
// parameters live in each stored string, so they can be raised later without a migration.
const DEFAULT_LOG_N = 15;
const DEFAULT_R = 8;
const DEFAULT_P = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
// Bounds for parameters read back from the store: a corrupt row must not make one login
// allocate gigabytes.
const MAX_LOG_N = 20;
const MAX_R = 32;
const MAX_P = 16;

interface ScryptParams {
  logN: number;
  r: number;
  p: number;
}

function derive(password: string, salt: Buffer, keyLength: number, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.logN;
  // node's default maxmem (32 MiB) is exactly 128·N·r for N=2^15, r=8 and is refused; allow twice.
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 2 * 128 * N * params.r * params.p };
  return new Promise((resolve, reject) => {
    scrypt(normalizePassword(password), salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');

export async function hashPassword(password: string): Promise<string> {
  const params = { logN: DEFAULT_LOG_N, r: DEFAULT_R, p: DEFAULT_P };
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, KEY_BYTES, params);
  return ['scrypt', params.logN, params.r, params.p, b64(salt), b64(key)].join('$');
}

interface ParsedHash extends ScryptParams {
  salt: Buffer;
  key: Buffer;
}

function parseHash(stored: string): ParsedHash | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [logN, r, p] = parts.slice(1, 4).map((s) => (/^\d{1,3}$/.test(s) ? Number(s) : NaN));
  if (logN === undefined || r === undefined || p === undefined) return null;
  if (!(logN >= 1 && logN <= MAX_LOG_N && r >= 1 && r <= MAX_R && p >= 1 && p <= MAX_P)) return null;
  const salt = Buffer.from(parts[4] ?? '', 'base64');
  const key = Buffer.from(parts[5] ?? '', 'base64');
  if (salt.length < 8 || key.length < 16 || key.length > 64) return null;
  return { logN, r, p, salt, key };
}

// A real hash of a password nobody knows, made once: checking a login against it when the
// account does not exist costs the same scrypt run, so response time does not reveal which
// emails have accounts.
let dummyHash: Promise<string> | undefined;
/** Makes the equalizer hash now (start-up), so the first unknown-email login is not slower. */
export function timingEqualizer(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(32).toString('hex'));
  return dummyHash;
}

/**
 * True when `password` matches `stored`. With `stored` null (no such account, or an account of
 * an external issuer) a full scrypt run still happens and the answer is false.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parsed = parseHash(stored ?? (await timingEqualizer()));
  if (!parsed) {
    await verifyPassword(password, null);
    return false;
  }
  const candidate = await derive(password, parsed.salt, parsed.key.length, parsed);
  // Constant-time comparison; the lengths are equal by construction (same key length).
  const matches = timingSafeEqual(candidate, parsed.key);
  return matches && stored !== null;
}
