// The built-in issuer's ES256 keys: generated once, persisted through the store, cached here.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { SigningKeyRepository } from '@spoor/store';
import type { SigningKeyRecord } from '@spoor/schemas';

export const BUILT_IN_ALG = 'ES256';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
}

interface VerificationKey {
  kid: string;
  createdAt: number;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

/** (created_at, kid): the same total order in every process, ties included. */
function oldestFirst(a: SigningKeyRecord, b: SigningKeyRecord): number {
  return a.created_at - b.created_at || (a.kid < b.kid ? -1 : a.kid > b.kid ? 1 : 0);
}

export class SigningKeyRing {
  #signing: Promise<SigningKey> | undefined;
  #current: SigningKeyRecord | undefined;
  #verification = new Map<string, VerificationKey>();
  #lastReload = -Infinity;

  /**
   * @param reloadCooldownMs an unknown `kid` re-reads the store at most this often, so forged
   *   tokens with random kids cannot turn into a query storm.
   */
  constructor(
    private readonly repository: SigningKeyRepository,
    private readonly clock: () => number,
    private readonly reloadCooldownMs = 30_000,
  ) {}

  /**
   * The key new tokens are signed with: the OLDEST stored key. The first start creates one;
   * starts that race all create one, then re-list and take the oldest, so they converge. A
   * racer whose insert commits after another process listed can still leave two processes on
   * two keys; both keys verify everywhere (verificationKey), and the first token signed with
   * the other key makes this process re-read the store and adopt the oldest, so they converge
   * again. The promise is cached; a failure (store down) is not, so the next call retries.
   */
  signingKey(): Promise<SigningKey> {
    this.#signing ??= this.#loadSigningKey().catch((err: unknown) => {
      this.#signing = undefined;
      throw err;
    });
    return this.#signing;
  }

  async #loadSigningKey(): Promise<SigningKey> {
    if ((await this.#reload()).length === 0) {
      await this.repository.create(await this.#generate());
      await this.#reload();
    }
    if (!this.#current) throw new Error('signing key store returned no key after create');
    return this.#importPrivate(this.#current);
  }

  async #importPrivate(record: SigningKeyRecord): Promise<SigningKey> {
    const privateKey = await importJWK(JSON.parse(record.private_jwk) as JWK, BUILT_IN_ALG);
    return { kid: record.kid, privateKey: privateKey as CryptoKey };
  }

  async #generate(): Promise<SigningKeyRecord> {
    const { privateKey, publicKey } = await generateKeyPair(BUILT_IN_ALG, { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    // kid = RFC 7638 thumbprint: derived from the key itself, so it cannot collide between
    // processes that generate at the same moment.
    const kid = await calculateJwkThumbprint(publicJwk);
    const privateJwk = await exportJWK(privateKey);
    return {
      kid,
      private_jwk: JSON.stringify({ ...privateJwk, kid, alg: BUILT_IN_ALG }),
      public_jwk: JSON.stringify({ ...publicJwk, kid, alg: BUILT_IN_ALG, use: 'sig' }),
      // Read just before the insert (not before key generation), so insert order and
      // created_at order agree as closely as one clock allows.
      created_at: this.clock(),
    };
  }

  /** Reads every stored key into the verification map and adopts the oldest for signing. */
  async #reload(): Promise<SigningKeyRecord[]> {
    this.#lastReload = this.clock();
    const records = [...(await this.repository.list())].sort(oldestFirst);
    for (const record of records) {
      if (this.#verification.has(record.kid)) continue;
      const publicJwk = JSON.parse(record.public_jwk) as JWK;
      const publicKey = (await importJWK(publicJwk, BUILT_IN_ALG)) as CryptoKey;
      this.#verification.set(record.kid, { kid: record.kid, createdAt: record.created_at, publicKey, publicJwk });
    }
    const oldest = records[0];
    if (oldest && (!this.#current || oldestFirst(oldest, this.#current) < 0)) {
      const adopting = this.#current !== undefined;
      this.#current = oldest;
      if (adopting) {
        this.#signing = this.#importPrivate(oldest).catch((err: unknown) => {
          this.#signing = undefined;
          throw err;
        });
      }
    }
    return records;
  }

  /**
   * The public key for `kid`, or null. Every stored key verifies, not only the one this process
   * signs with (see signingKey). An unknown kid re-reads the store once per cooldown; store
   * errors then count as "no such key".
   */
  async verificationKey(kid: string): Promise<CryptoKey | null> {
    await this.signingKey();
    const known = this.#verification.get(kid);
    if (known) return known.publicKey;
    if (this.clock() - this.#lastReload < this.reloadCooldownMs) return null;
    try {
      await this.#reload();
    } catch {
      return null;
    }
    return this.#verification.get(kid)?.publicKey ?? null;
  }

  /** Public JWKs of every stored key, oldest first (RFC 7517 §5 JWK Set members). */
  async publicJwks(): Promise<JWK[]> {
    await this.signingKey();
    // Built member by member: only the public EC members (RFC 7518 §6.2.1) can ever leave,
    // whatever a stored row holds.
    const keys = [...this.#verification.values()].sort((a, b) => a.createdAt - b.createdAt);
    return keys.map(({ kid, publicJwk: { kty, crv, x, y } }) => ({
      kty,
      crv,
      x,
      y,
      kid,
      alg: BUILT_IN_ALG,
      use: 'sig',
    }));
  }
}
