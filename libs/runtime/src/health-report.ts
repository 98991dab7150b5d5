import { SERVICE_NAMES } from '@spoor/config';
import type { Bus } from '@spoor/bus';
import { DROP_REASON_NAMES, type DropReason, type HealthReport } from '@spoor/schemas';
import type { Store, StoredRecord } from '@spoor/store';
import { HEARTBEAT_KIND, HEARTBEAT_RETENTION_MS, type Heartbeat } from './heartbeat.js';

/** An instance is alive while its last heartbeat is younger than this many of its intervals. */
const MISSED_BEATS = 3;
/** A consumer group further behind than this is reported as a problem. */
export const LAG_PROBLEM = 10_000;

const sum = (beats: Heartbeat[], service: string, key: string, from: 'stats' | 'rates' = 'stats') =>
  beats.reduce((n, b) => n + (b[from][service]?.[key] ?? 0), 0);

/** Counters of job runners (classifier, worker): `failed` or `jobs_failed`, and so on. */
const jobSum = (beats: Heartbeat[], key: string) =>
  beats.reduce(
    (n, b) => n + Object.values(b.stats).reduce((m, c) => m + (c[key] ?? 0) + (c[`jobs_${key}`] ?? 0), 0),
    0,
  );

/**
 * The heartbeats last read from each store, for a report while the store cannot be read (issue 16):
 * the services are then shown as they were at that read, not declared dead because the store is.
 */
const lastRead = new WeakMap<Store, { at: number; beats: Heartbeat[] }>();

async function readHeartbeats(
  store: Store,
  now: number,
): Promise<{ at: number; beats: Heartbeat[]; error: string | null }> {
  try {
    // Only the retention window, newest first: heartbeats the hourly purge has not reached yet
    // cannot crowd live instances out of the limit.
    const records: Array<StoredRecord<Heartbeat>> = await store.records.list<Heartbeat>(HEARTBEAT_KIND, '', {
      from: now - HEARTBEAT_RETENTION_MS,
      limit: 1000,
    });
    const read = { at: now, beats: records.map((r) => r.data) };
    lastRead.set(store, read);
    return { ...read, error: null };
  } catch (err) {
    return {
      ...(lastRead.get(store) ?? { at: now, beats: [] }),
      error: err instanceof Error ? err.message : String(err),
    };
  }
}

/** Every reason of the catalogue, summed over the live instances' services. */
function droppedTotals(beats: Heartbeat[]): Record<DropReason, number> {
  const totals = Object.fromEntries(DROP_REASON_NAMES.map((r) => [r, 0])) as Record<DropReason, number>;
  for (const b of beats) {
    for (const counts of Object.values(b.dropped ?? {})) {
      for (const r of DROP_REASON_NAMES) totals[r] += counts[r] ?? 0;
    }
  }
  return totals;
}

export interface HealthReportDeps {
  store: Store;
  bus: Bus;
  clock: () => number;
  version: string;
}

/**
 * The pipeline's health from every instance's latest heartbeat (libs/runtime/heartbeat.ts), the
 * bus' consumer lag and the store's size. `problems` says in words what is wrong; the status is
 * `down` when no ingest instance is alive (events are being lost), `degraded` when any problem
 * is listed, `ok` otherwise. A store that cannot be read is itself a problem (issue 16): the report
 * still answers, from the bus and the heartbeats last read, with status `degraded`.
 */
export async function buildHealthReport(deps: HealthReportDeps): Promise<HealthReport> {
  const now = deps.clock();
  const read = await readHeartbeats(deps.store, now);
  const all = read.beats;
  // Judged at the last read that worked: while the store is away, no heartbeat can be written.
  const alive = all.filter((b) => read.at - b.at <= MISSED_BEATS * b.every_ms);
  const problems: string[] = [];
  const storeDown =
    read.error === null
      ? null
      : `the store (${deps.store.kind}) cannot be read: ${read.error}; consumers are retrying their batches and their lag grows until it is back`;
  if (storeDown) problems.push(storeDown);
  const services = SERVICE_NAMES.map((name) => {
    const instances = all
      .filter((b) => b.services.includes(name))
      .map((b) => ({
        instance: b.instance,
        alive: alive.includes(b),
        last_seen: b.at,
        started_at: b.started_at,
        version: b.version,
      }));
    const up = instances.some((i) => i.alive);
    if (!up && !storeDown)
      problems.push(
        instances.length
          ? `no live ${name} instance (last seen ${new Date(Math.max(...instances.map((i) => i.last_seen))).toISOString()})`
          : `no ${name} instance has reported`,
      );
    return { name, alive: up, instances };
  });
  const groups = new Map(alive.flatMap((b) => b.consumes).map((c) => [`${c.topic}\n${c.group}`, c]));
  const lag = await Promise.all(
    [...groups.values()].map(async (c) => ({ ...c, lag: await deps.bus.lag(c.topic, c.group).catch(() => -1) })),
  );
  for (const l of lag) {
    if (l.lag > LAG_PROBLEM) problems.push(`consumer group ${l.group} is ${l.lag} messages behind on ${l.topic}`);
    if (l.lag < 0) problems.push(`the lag of ${l.group} on ${l.topic} could not be read`);
  }
  const failures = sum(alive, 'ingest', 'publish_failures', 'rates');
  if (failures > 0) problems.push(`ingest fails to publish to the bus (${failures} per second)`);
  // Without the store, whether ingest is alive is unknown: degraded, not down.
  const ingestUp = storeDown !== null || services.find((s) => s.name === 'ingest')!.alive;
  return {
    status: !ingestUp ? 'down' : problems.length ? 'degraded' : 'ok',
    version: deps.version,
    checked_at: now,
    uptime_ms: alive.length ? now - Math.min(...alive.map((b) => b.started_at)) : 0,
    services,
    ingest: {
      accepted_total: sum(alive, 'ingest', 'accepted'),
      rejected_total: sum(alive, 'ingest', 'rejected'),
      publish_failures_total: sum(alive, 'ingest', 'publish_failures'),
      rate_per_s: sum(alive, 'ingest', 'accepted', 'rates'),
    },
    lag: lag.sort((a, b) => (a.topic + a.group < b.topic + b.group ? -1 : 1)),
    jobs: {
      started_total: jobSum(alive, 'started'),
      succeeded_total: jobSum(alive, 'succeeded'),
      failed_total: jobSum(alive, 'failed'),
    },
    storage: { kind: deps.store.kind, size_bytes: await deps.store.sizeBytes().catch(() => -1) },
    dropped: droppedTotals(alive),
    problems,
  };
}
