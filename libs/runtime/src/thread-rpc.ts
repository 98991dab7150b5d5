// Calls between the HTTP thread and the pipeline thread of an embedded all-in-one process
// (issue 14; pipeline-thread.ts). Each side exposes objects by name and calls the other's;
// arguments and answers cross by structured clone, errors by name and message (the classes
// callers test with `instanceof` are rebuilt here).
import type { MessagePort, Worker } from 'node:worker_threads';
import { PublishTimeoutError } from '@spoor/bus';
import { FunnelTooLargeError, StatsPatternError, StoreConflictError } from '@spoor/store';

type Port = Pick<MessagePort | Worker, 'postMessage' | 'on' | 'off'>;

interface SentError {
  name: string;
  message: string;
  stack?: string | undefined;
  /** The error's own fields that clone (a PublishTimeoutError's timeoutMs). */
  props?: Record<string, unknown>;
}

type Message =
  | { t: 'call'; id: number; target: string; path: string[]; args: unknown[] }
  | { t: 'ok'; id: number; value: unknown }
  | { t: 'rows'; id: number; names: string[]; columns: unknown[][] }
  | { t: 'err'; id: number; error: SentError }
  | { t: 'note'; name: string; data: unknown };

/** Error classes rebuilt on the calling side, by name. */
const REBUILT: Record<string, abstract new (...args: never[]) => Error> = {
  StoreConflictError,
  FunnelTooLargeError,
  StatsPatternError,
  PublishTimeoutError,
};

export class ThreadClosedError extends Error {
  constructor() {
    super('the pipeline thread is gone');
    this.name = 'ThreadClosedError';
  }
}

/** One side of the channel. */
export class RpcEndpoint {
  private readonly targets = new Map<string, object>();
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  private readonly notes = new Map<string, (data: unknown) => void>();
  private nextId = 1;
  private closed = false;
  private readonly onMessage = (m: Message) => this.receive(m);

  constructor(private readonly port: Port) {
    port.on('message', this.onMessage);
  }

  /** Makes `obj`'s methods (at any depth: `events.insertRaw`) callable as `target`. */
  expose(target: string, obj: object): void {
    this.targets.set(target, obj);
  }

  /** Receives one-way notes named `name`. */
  onNote(name: string, fn: (data: unknown) => void): void {
    this.notes.set(name, fn);
  }

  note(name: string, data: unknown): void {
    if (!this.closed) this.port.postMessage({ t: 'note', name, data } satisfies Message);
  }

  call<T = unknown>(target: string, path: string[], args: unknown[]): Promise<T> {
    if (this.closed) return Promise.reject(new ThreadClosedError());
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      try {
        this.port.postMessage({ t: 'call', id, target, path, args } satisfies Message);
      } catch (err) {
        this.pending.delete(id);
        reject(err);
      }
    });
  }

  /**
   * A stand-in for the other side's object `target` (or its member at `path`): each method of it
   * becomes a call(). Not a promise, not a function itself.
   */
  remote<T>(target: string, path: string[] = []): T {
    const methods = new Map<string, (...args: unknown[]) => Promise<unknown>>();
    return new Proxy(
      {},
      {
        get: (_obj, prop) => {
          if (typeof prop === 'symbol' || prop === 'then') return undefined;
          let method = methods.get(prop);
          if (!method) methods.set(prop, (method = (...args: unknown[]) => this.call(target, [...path, prop], args)));
          return method;
        },
      },
    ) as T;
  }

  /** Fails every call still waiting (the other side exited). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.port.off('message', this.onMessage);
    for (const p of this.pending.values()) p.reject(new ThreadClosedError());
    this.pending.clear();
  }

  private receive(m: Message): void {
    if (m.t === 'call') {
      void this.answer(m);
      return;
    }
    if (m.t === 'note') {
      this.notes.get(m.name)?.(m.data);
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.t === 'ok') p.resolve(m.value);
    else if (m.t === 'rows') p.resolve(unpackRows(m.names, m.columns));
    else p.reject(rebuild(m.error));
  }

  private async answer(m: Extract<Message, { t: 'call' }>): Promise<void> {
    let reply: Message;
    try {
      let owner: unknown = this.targets.get(m.target);
      if (owner === undefined) throw new Error(`nothing exposed as ${m.target}`);
      for (const key of m.path.slice(0, -1)) owner = (owner as Record<string, unknown>)[key];
      const method = m.path.at(-1)!;
      const fn = (owner as Record<string, unknown>)[method];
      if (typeof fn !== 'function') throw new Error(`${m.target}.${m.path.join('.')} is not a function`);
      const value = await (fn as (...a: unknown[]) => unknown).apply(owner, m.args);
      const names = Array.isArray(value) && value.length >= PACKED_ROWS ? rowNames(value) : null;
      reply = names
        ? { t: 'rows', id: m.id, names, columns: packRows(value as Row[], names) }
        : { t: 'ok', id: m.id, value };
    } catch (err) {
      reply = { t: 'err', id: m.id, error: sendable(err) };
    }
    if (this.closed) return;
    try {
      this.port.postMessage(reply);
    } catch (err) {
      // An answer that cannot be cloned (a function, a stream) is a programming error: say so.
      this.port.postMessage({ t: 'err', id: m.id, error: sendable(err) } satisfies Message);
    }
  }
}

type Row = Record<string, unknown>;

/**
 * An answer of at least this many rows of one shape (a page of sessions, a tag's sessions)
 * crosses as columns, rebuilt into the same rows on the other side: cloning 1,000 objects of
 * four fields cost 0.57 ms of CPU, their four columns and the rebuild 0.17 (issue 15).
 */
const PACKED_ROWS = 32;

/** The keys every item has, in the same order, when all are plain objects; else null. */
function rowNames(items: unknown[]): string[] | null {
  const first: unknown = items[0];
  if (!isPlainObject(first)) return null;
  const names = Object.keys(first);
  if (names.length === 0) return null;
  for (const item of items) {
    if (!isPlainObject(item)) return null;
    let i = 0;
    for (const key in item) {
      if (key !== names[i++]) return null;
    }
    if (i !== names.length) return null;
  }
  return names;
}

function isPlainObject(v: unknown): v is Row {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

function packRows(rows: Row[], names: string[]): unknown[][] {
  return names.map((name) => rows.map((row) => row[name]));
}

function unpackRows(names: string[], columns: unknown[][]): Row[] {
  const rows: Row[] = new Array(columns[0]?.length ?? 0);
  for (let r = 0; r < rows.length; r++) {
    const row: Row = {};
    for (let c = 0; c < names.length; c++) row[names[c]!] = columns[c]![r];
    rows[r] = row;
  }
  return rows;
}

function sendable(err: unknown): SentError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const props = Object.fromEntries(
    Object.entries(err).filter(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v)),
  );
  return { name: err.name, message: err.message, stack: err.stack, props };
}

function rebuild(e: SentError): Error {
  const Made = REBUILT[e.name];
  const err = (Made ? Object.create(Made.prototype) : new Error(e.message)) as Error;
  Object.assign(err, e.props ?? {});
  err.name = e.name;
  err.message = e.message;
  if (e.stack) err.stack = e.stack;
  return err;
}
