// Where the classifier's and the backfill's time goes: the store and KV handed to them are
// wrapped so every repository call is timed (wall clock, awaited). The code under test is
// unchanged; the wrapper adds one closure per call, a few per batch of 500 sessions.
import type { Kv } from '@spoor/kv';
import type { Store } from '@spoor/store';

export interface CallTiming {
  calls: number;
  ms: number;
  /** Slowest call, ms. */
  maxMs: number;
  /** Mean ms per call over the first and the last tenth of the calls: growth with table size. */
  firstTenthMs: number;
  lastTenthMs: number;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

function summarise(durations: number[]): CallTiming {
  const tenth = Math.max(1, Math.floor(durations.length / 10));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    calls: durations.length,
    ms: round1(durations.reduce((a, b) => a + b, 0)),
    maxMs: round1(Math.max(...durations)),
    firstTenthMs: round1(mean(durations.slice(0, tenth))),
    lastTenthMs: round1(mean(durations.slice(-tenth))),
  };
}

export class CallTimings {
  /** Every call's duration in ms, in call order, per `repository.method`. */
  private readonly byName = new Map<string, number[]>();

  record(name: string, ms: number): void {
    const list = this.byName.get(name) ?? [];
    list.push(ms);
    this.byName.set(name, list);
  }

  reset(): void {
    this.byName.clear();
  }

  /** Calls and total milliseconds per `repository.method`, largest total first. */
  snapshot(): Record<string, CallTiming> {
    const summaries = [...this.byName].map(([name, durations]) => [name, summarise(durations)] as const);
    return Object.fromEntries(summaries.sort((a, b) => b[1].ms - a[1].ms));
  }

  totalMs(): number {
    let ms = 0;
    for (const durations of this.byName.values()) for (const d of durations) ms += d;
    return ms;
  }
}

function timed<T extends object>(target: T, prefix: string, timings: CallTimings): T {
  return new Proxy(target, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== 'function') return value;
      const name = `${prefix}.${String(prop)}`;
      return (...args: unknown[]) => {
        const t0 = performance.now();
        const out: unknown = value.apply(obj, args);
        if (out instanceof Promise) return out.finally(() => timings.record(name, performance.now() - t0));
        timings.record(name, performance.now() - t0);
        return out;
      };
    },
  });
}

const REPOSITORIES = new Set(['sessions', 'classifications', 'tags', 'rules', 'events']);

/** The same store, its repositories' methods timed into `timings`. */
export function timedStore(store: Store, timings: CallTimings): Store {
  const wrapped = new Map<string, object>();
  return new Proxy(store, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof prop !== 'string' || !REPOSITORIES.has(prop))
        return typeof value === 'function' ? value.bind(obj) : value;
      if (!wrapped.has(prop)) wrapped.set(prop, timed(value as object, prop, timings));
      return wrapped.get(prop);
    },
  });
}

export function timedKv(kv: Kv, timings: CallTimings): Kv {
  return timed(kv, 'kv', timings);
}
