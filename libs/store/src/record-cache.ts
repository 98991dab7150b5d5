// The gateway's short memory of accounts and projects (issue 15, third round; docs/performance.md).
// Every authenticated read looked up its account and its project in the engine before answering,
// and a DuckDB query costs ~0.45 ms of CPU even for a point lookup: two of the four queries of a
// read. This process' own writes (store-changes.ts) empty the cache at once; another process'
// change shows within `ttlMs`. Only records found are kept: a project registered elsewhere is
// seen at its first request, and a deleted one is never answered from memory once this process
// heard of the deletion or the entry aged out.
import type { AccountRecord, ProjectRecord } from '@spoor/schemas';
import type { AccountRepository, ProjectRepository, Store } from './store.js';
import { announcingStore, type StoreChange, type StoreChangeFeed } from './store-changes.js';

export interface RecordCacheOptions {
  /** How long a record read from the engine is answered from memory; 0 turns the cache off. */
  ttlMs: number;
  /** Monotonic milliseconds. */
  now?: () => number;
  /** Entries per kind; past it the kind starts empty again (a burst of many accounts, not a steady state). */
  maxEntries?: number;
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
 * `store` with `projects.find`, `projects.get`, `accounts.get` and `accounts.findBySubject`
 * answered from memory for up to `ttlMs`. Writes go through `announcingStore` on `changes` (once:
 * a store already announcing there is used as it is), so every change announced there — this
 * one's writes, another thread's it forwards — empties the kind it names; the list of writes that
 * change a record lives in store-changes.ts alone. Every other read goes to `store` as it is. API
 * keys and token revocations are not cached: they are read on every request, so a revoked
 * credential is refused by every process at once (authenticator.ts).
 */
export function cachingStore(store: Store, changes: StoreChangeFeed, options: RecordCacheOptions): Store {
  if (options.ttlMs <= 0) return store;
  const now = options.now ?? (() => performance.now());
  const max = options.maxEntries ?? 10_000;
  const projects = new Shelf<ProjectRecord>(options.ttlMs, now, max);
  const accounts = new Shelf<AccountRecord>(options.ttlMs, now, max);
  changes.on((change: StoreChange) => {
    if (change.projects) projects.clear();
    if (change.accounts) accounts.clear();
  });
  const announced = announcingStore(store, changes);
  const projectRepo = announced.projects;
  const accountRepo = announced.accounts;
  const cachedProjects = withReads<ProjectRepository>(projectRepo, {
    find: (origin, project) =>
      projects.get(`o\u0000${origin}\u0000${project}`, () => projectRepo.find(origin, project)),
    get: (projectId) => projects.get(`i\u0000${projectId}`, () => projectRepo.get(projectId)),
  });
  const cachedAccounts = withReads<AccountRepository>(accountRepo, {
    get: (accountId) => accounts.get(`i\u0000${accountId}`, () => accountRepo.get(accountId)),
    findBySubject: (issuer, subject) =>
      accounts.get(`s\u0000${issuer}\u0000${subject}`, () => accountRepo.findBySubject(issuer, subject)),
  });
  return new Proxy(announced, {
    get(target, prop) {
      if (prop === 'projects') return cachedProjects;
      if (prop === 'accounts') return cachedAccounts;
      return Reflect.get(target, prop, target) as unknown;
    },
  });
}

/** `repo` with the cached reads in place of its own; every other method is the repository's. */
function withReads<R extends object>(repo: R, reads: Partial<R>): R {
  return new Proxy(repo, {
    get: (target, prop) => (prop in reads ? reads[prop as keyof R] : Reflect.get(target, prop, target)),
  });
}
