// What a process' own writes changed among the records its readers cache (issue 15, third round;
// record-cache.ts): the process announces each write to projects and accounts on a feed, and a
// cache in the same process drops what it holds at once. Changes made by other processes are
// not heard here; the cache's time bound covers those, except for credentials, whose writes
// also move a mark that every process reads (announcingStore's `marked`, CredentialMark).
import type { Store } from './store.js';

/** Which kinds of record a write touched. Plain data: it crosses threads by structured clone. */
export interface StoreChange {
  projects?: true;
  accounts?: true;
  /** Memberships added, changed or removed (issue 45). */
  members?: true;
  /** API keys created or revoked (cached where this process holds the store alone or reads the credential mark). */
  apiKeys?: true;
  /** ID tokens revoked (likewise). */
  revocations?: true;
}

export type StoreChangeListener = (change: StoreChange) => void;

/** The writes of one process (or thread), heard by its caches; a listener that throws is not the writer's fault. */
export class StoreChangeFeed {
  readonly #listeners = new Set<StoreChangeListener>();

  /** Answers a function that removes the listener. */
  on(listener: StoreChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(change: StoreChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch {
        // A cache that cannot forget is still bounded by its lifetime; the write stands.
      }
    }
  }
}

type Method = (...args: never[]) => Promise<unknown>;

/** Stores announcingStore made, by their feed: wrapping one again on the same feed would announce each write twice. */
const announcing = new WeakMap<Store, StoreChangeFeed>();

/**
 * The write methods that change a cached record, by repository, and what each changes. Deleting
 * an account deletes its API keys too.
 */
const WRITES: Record<string, Record<string, StoreChange>> = {
  projects: {
    create: { projects: true, members: true },
    setVerified: { projects: true },
    updateSettings: { projects: true },
  },
  accounts: { create: { accounts: true } },
  members: { put: { members: true }, change: { members: true } },
  apiKeys: { create: { apiKeys: true }, revoke: { apiKeys: true } },
  revokedTokens: { revoke: { revocations: true } },
  erasure: {
    deleteProject: { projects: true, members: true },
    deleteAccount: { accounts: true, projects: true, apiKeys: true, members: true },
  },
};

/**
 * A mark that moves with every change to API keys or token revocations, in a place every process
 * sharing the store reads (Redis, in Kafka mode): a gateway that caches credentials compares it
 * before each answer from memory (record-cache.ts), so another process' logout is heard at the
 * next request, not after the cache's lifetime.
 */
export interface CredentialMark {
  /** The mark as it stands; rejects when it cannot be read (the caller then asks the store). */
  read(): Promise<string | null>;
  /** Moves it to a value it never had. */
  move(): Promise<void>;
}

/** A credential mark the writes move, and where a move that fails is reported. */
export interface MarkedWrites {
  mark: CredentialMark;
  /** The write stands: the other gateways' memory of it still ends with its lifetime. */
  failed: (err: unknown) => void;
}

/**
 * `store` whose writes to projects and accounts are announced on `feed` once the engine has
 * them — also when they fail half way, since part of them may have been applied — and, with
 * `marked`, whose writes to API keys and revocations move the mark before they answer.
 * Everything else passes through untouched. A store already announcing on `feed` is returned
 * as it is (marks and all), so wrapping again never announces a write twice.
 */
export function announcingStore(store: Store, feed: StoreChangeFeed, marked?: MarkedWrites): Store {
  if (announcing.get(store) === feed) return store;
  const after = (change: StoreChange) => {
    feed.emit(change);
    if (marked && (change.apiKeys || change.revocations)) return marked.mark.move().catch(marked.failed);
    return undefined;
  };
  const repositories = new Map<string, unknown>();
  for (const [name, methods] of Object.entries(WRITES)) {
    const repo = (store as unknown as Record<string, Record<string, Method>>)[name]!;
    repositories.set(
      name,
      new Proxy(repo, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (typeof value !== 'function') return value;
          const change = typeof prop === 'string' ? methods[prop] : undefined;
          if (!change) return (value as Method).bind(target);
          return (...args: never[]) => (value as Method).apply(target, args).finally(() => after(change));
        },
      }),
    );
  }
  const announced = new Proxy(store, {
    get(target, prop) {
      if (typeof prop === 'string' && repositories.has(prop)) return repositories.get(prop);
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as Method).bind(target) : value;
    },
  });
  announcing.set(announced, feed);
  return announced;
}
