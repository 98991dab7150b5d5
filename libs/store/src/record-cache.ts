// The gateway's short memory of accounts and projects (issue 15; docs/performance.md, Read).
// Every authenticated read looked up its account and its project in the engine before answering,
// and a DuckDB query costs ~0.45 ms of CPU even for a point lookup: two of the four queries of a
// read. This process' own writes (store-changes.ts) empty the cache at once; another process'
// change shows within `ttlMs`. Only records found are kept: a project registered elsewhere is
// seen at its first request, and a deleted one is never answered from memory once this process
// heard of the deletion or the entry aged out. On a store this process holds alone (embedded
// DuckDB), API keys and token revocations are cached too (`credentials`), and on a store shared
// by several processes when each checks a mark that every revocation moves (CredentialMark).
import type { AccountRecord, ApiKeyRecord, ProjectRecord } from '@spoor/schemas';
import type {
  AccountRepository,
  ApiKeyRepository,
  ProjectRepository,
  Store,
  TokenRevocationRepository,
} from './store.js';
import type { MemberRecord, MemberRepository } from './members.js';
import { announcingStore, type CredentialMark, type StoreChange, type StoreChangeFeed } from './store-changes.js';

export interface RecordCacheOptions {
  /** How long a record read from the engine is answered from memory; 0 turns the cache off. */
  ttlMs: number;
  /** Monotonic milliseconds. */
  now?: () => number;
  /** Entries per kind; past it the kind starts empty again (a burst of many accounts, not a steady state). */
  maxEntries?: number;
  /**
   * Also answer API keys by hash and token revocations from memory. Only for a store this process
   * holds alone (an embedded DuckDB file, which one process opens): there every write to either
   * is this process' own, heard on `changes` before the write's answer, so a revoked key or a
   * logged-out token is refused at its next request as without the cache. On a store shared by
   * several gateways a revocation elsewhere would go unheard for `ttlMs`: there pass the
   * `CredentialMark` that every process' writes move (announcingStore's `marked`): each answer from memory first
   * reads the mark, and a mark that moved (or cannot be read) sends the read to the store.
   */
  credentials?: boolean | CredentialMark;
}

interface Entry<T> {
  value: T;
  expiresAt: number;
}

/** One kind of record: its entries, and a generation that each change bumps. */
class Shelf<T> {
  readonly #entries = new Map<string, Entry<T>>();
  #generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly maxEntries: number,
  ) {}

  clear(): void {
    this.#entries.clear();
    this.#generation++;
  }

  /**
   * The cached record, else `load()`'s. A load that a change overtook is answered but not kept:
   * it may have read the row just before a deletion this process has since heard of.
   */
  async get(key: string, load: () => Promise<T | null>): Promise<T | null> {
    const now = this.now();
    const hit = this.#entries.get(key);
    if (hit && hit.expiresAt > now) return structuredClone(hit.value);
    if (hit) this.#entries.delete(key);
    const generation = this.#generation;
    const value = await load();
    if (value !== null && generation === this.#generation) {
      if (this.#entries.size >= this.maxEntries) this.#entries.clear();
      // A copy is kept and copies are handed out: a caller that edits its record edits its own.
      this.#entries.set(key, { value: structuredClone(value), expiresAt: now + this.ttlMs });
    }
    return value;
  }
}

/**
 * `store` with `projects.find`, `projects.get`, `members.get`, `accounts.get` and `accounts.findBySubject`
 * answered from memory for up to `ttlMs` — and with `credentials`, `apiKeys.findByHash` and
 * `revokedTokens.isRevoked` too. Writes go through `announcingStore` on `changes` (once: a store
 * already announcing there is used as it is), so every change announced there — this one's
 * writes, another thread's it forwards — empties the kind it names; the list of writes that
 * change a record lives in store-changes.ts alone. Every other read goes to `store` as it is.
 */
export function cachingStore(store: Store, changes: StoreChangeFeed, options: RecordCacheOptions): Store {
  if (options.ttlMs <= 0) return store;
  const now = options.now ?? (() => performance.now());
  const max = options.maxEntries ?? 10_000;
  const projects = new Shelf<ProjectRecord>(options.ttlMs, now, max);
  const accounts = new Shelf<AccountRecord>(options.ttlMs, now, max);
  const members = new Shelf<MemberRecord>(options.ttlMs, now, max);
  const apiKeys = new Shelf<ApiKeyRecord>(options.ttlMs, now, max);
  const revocations = new Shelf<{ revoked: boolean }>(options.ttlMs, now, max);
  changes.on((change: StoreChange) => {
    if (change.projects) projects.clear();
    if (change.accounts) accounts.clear();
    if (change.members) members.clear();
    if (change.apiKeys) apiKeys.clear();
    if (change.revocations) revocations.clear();
  });
  const announced = announcingStore(store, changes);
  const projectRepo = announced.projects;
  const accountRepo = announced.accounts;
  const memberRepo = announced.members;
  const cached: Partial<Record<keyof Store, unknown>> = {
    projects: withReads<ProjectRepository>(projectRepo, {
      find: (origin, project) =>
        projects.get(`o\u0000${origin}\u0000${project}`, () => projectRepo.find(origin, project)),
      get: (projectId) => projects.get(`i\u0000${projectId}`, () => projectRepo.get(projectId)),
    }),
    // A member's role, read by every request to a project (issue 45): a removal elsewhere shows within ttlMs.
    members: withReads<MemberRepository>(memberRepo, {
      get: (projectId, accountId) =>
        members.get(`${projectId}\u0000${accountId}`, () => memberRepo.get(projectId, accountId)),
    }),
    accounts: withReads<AccountRepository>(accountRepo, {
      get: (accountId) => accounts.get(`i\u0000${accountId}`, () => accountRepo.get(accountId)),
      findBySubject: (issuer, subject) =>
        accounts.get(`s\u0000${issuer}\u0000${subject}`, () => accountRepo.findBySubject(issuer, subject)),
    }),
  };
  if (options.credentials) {
    const keyRepo = announced.apiKeys;
    const revokedRepo = announced.revokedTokens;
    // With a mark, each answer first reads it: moved, the shelves are emptied; unreadable, the store answers.
    const fresh = options.credentials === true ? null : freshness(options.credentials, [apiKeys, revocations]);
    const remembered = async <T>(fromMemory: () => Promise<T>, fromStore: () => Promise<T>): Promise<T> =>
      !fresh || (await fresh()) ? fromMemory() : fromStore();
    cached.apiKeys = withReads<ApiKeyRepository>(keyRepo, {
      findByHash: (keyHash) => {
        const load = () => keyRepo.findByHash(keyHash);
        return remembered(() => apiKeys.get(keyHash, load), load);
      },
    });
    cached.revokedTokens = withReads<TokenRevocationRepository>(revokedRepo, {
      // Both answers are kept: a revocation only ever ends by the token's own expiry, which the
      // token's `exp` refuses before the store is asked.
      isRevoked: (tokenId, at) => {
        const load = () => revokedRepo.isRevoked(tokenId, at);
        return remembered(
          async () => (await revocations.get(tokenId, async () => ({ revoked: await load() })))!.revoked,
          load,
        );
      },
    });
  }
  return new Proxy(announced, {
    get(target, prop) {
      if (typeof prop === 'string' && prop in cached) return cached[prop as keyof Store];
      return Reflect.get(target, prop, target) as unknown;
    },
  });
}

/**
 * Before an answer from memory: reads `mark`, and empties `shelves` when it moved since the last
 * read. False when it cannot be read (the answer then comes from the store). Emptying is always
 * safe, so reads that overtake each other at worst empty the shelves once too often; a load that
 * an emptying overtook is not kept (Shelf.get), and a mark moves only after its write is stored.
 */
function freshness(mark: CredentialMark, shelves: ReadonlyArray<Shelf<unknown>>): () => Promise<boolean> {
  let seen: string | null | undefined;
  return async () => {
    let now: string | null;
    try {
      now = await mark.read();
    } catch {
      return false;
    }
    if (now !== seen) {
      for (const shelf of shelves) shelf.clear();
      seen = now;
    }
    return true;
  };
}

/** `repo` with the cached reads in place of its own; every other method is the repository's. */
function withReads<R extends object>(repo: R, reads: Partial<R>): R {
  return new Proxy(repo, {
    get: (target, prop) => (prop in reads ? reads[prop as keyof R] : Reflect.get(target, prop, target)),
  });
}
