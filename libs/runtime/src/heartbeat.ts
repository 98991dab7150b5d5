import type { Logger } from '@spoor/service-log';
import type { DropCounts } from '@spoor/schemas';
import type { Store } from '@spoor/store';

export const HEARTBEAT_KIND = 'heartbeat';
/** Heartbeats older than this are ignored and purged (the worker's hourly retention pass): an instance gone for an hour is forgotten. */
export const HEARTBEAT_RETENTION_MS = 3_600_000;

/** What each process records every heartbeat interval (records table, kind `heartbeat`). */
export interface Heartbeat {
  instance: string;
  services: string[];
  started_at: number;
  at: number;
  /** The interval the instance beats at: liveness is judged against it. */
  every_ms: number;
  version: string;
  /** Counters per service since the process started. */
  stats: Record<string, Record<string, number>>;
  /** The same counters per second over the last interval. */
  rates: Record<string, Record<string, number>>;
  consumes: Array<{ topic: string; group: string }>;
  /** Events let go per service since the process started, by reason (absent in older heartbeats). */
  dropped?: Record<string, DropCounts>;
}

export interface HeartbeatSource {
  name: string;
  stats?: () => Record<string, number>;
  drops?: () => DropCounts;
  consumes?: Array<{ topic: string; group: string }>;
}

export interface HeartbeatOptions {
  store: Store;
  clock: () => number;
  logger: Logger;
  everyMs: number;
  instance: string;
  version: string;
  sources: () => HeartbeatSource[];
}

/** Per-second rates of every counter between two readings. */
function ratesOf(now: Heartbeat['stats'], before: Heartbeat['stats'] | null, seconds: number): Heartbeat['rates'] {
  const out: Heartbeat['rates'] = {};
  for (const [service, counters] of Object.entries(now)) {
    out[service] = {};
    for (const [name, value] of Object.entries(counters)) {
      const prev = before?.[service]?.[name] ?? value;
      out[service]![name] = seconds > 0 ? Math.round(((value - prev) / seconds) * 100) / 100 : 0;
    }
  }
  return out;
}

/**
 * Records this process' liveness and counters in the store every `everyMs` (DESIGN.md, Health):
 * the health report reads every instance's latest heartbeat, whichever process answers.
 */
export function startHeartbeats(opts: HeartbeatOptions): { beat(): Promise<void>; stop(): Promise<void> } {
  const startedAt = opts.clock();
  let last: { at: number; stats: Heartbeat['stats'] } | null = null;
  let running: Promise<void> | null = null;
  const beat = async () => {
    const at = opts.clock();
    const sources = opts.sources();
    const stats = Object.fromEntries(sources.map((s) => [s.name, s.stats?.() ?? {}]));
    const data: Heartbeat = {
      instance: opts.instance,
      services: sources.map((s) => s.name),
      started_at: startedAt,
      at,
      every_ms: opts.everyMs,
      version: opts.version,
      stats,
      rates: ratesOf(stats, last?.stats ?? null, last ? (at - last.at) / 1000 : 0),
      consumes: sources.flatMap((s) => s.consumes ?? []),
      dropped: Object.fromEntries(sources.map((s) => [s.name, s.drops?.() ?? {}])),
    };
    last = { at, stats };
    await opts.store.records.put([
      {
        kind: HEARTBEAT_KIND,
        project_id: '',
        id: opts.instance,
        parent_id: '',
        sort_key: at,
        data,
        updated_at: at,
        deleted: false,
      },
    ]);
  };
  const once = () => {
    running ??= beat()
      .catch((err) => opts.logger.warn('heartbeat failed', { err }))
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => void once(), opts.everyMs);
  timer.unref();
  return {
    beat: once,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
