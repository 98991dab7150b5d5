import { z, EpochMs } from '../zod.js';
import { WindowQuery, limitParam } from './common.js';
import { DROP_REASONS, type DropReason } from '../drop-reasons.js';

const Instance = z.object({
  instance: z.string(),
  alive: z.boolean(),
  last_seen: EpochMs,
  started_at: EpochMs,
  version: z.string(),
});

/** GET /v1/status/health (DESIGN.md, Health): what an operator checks first. */
export const HealthReport = z
  .object({
    status: z
      .enum(['ok', 'degraded', 'down'])
      .openapi({ description: "'down' when no ingest instance is alive, 'degraded' when any problem is listed" }),
    version: z.string(),
    checked_at: EpochMs,
    uptime_ms: z.number().int().openapi({ description: 'Since the oldest live instance started' }),
    services: z.array(z.object({ name: z.string(), alive: z.boolean(), instances: z.array(Instance) })),
    ingest: z.object({
      accepted_total: z.number(),
      rejected_total: z.number(),
      publish_failures_total: z.number(),
      rate_per_s: z
        .number()
        .openapi({ description: 'Accepted events per second over the last heartbeat interval, all live instances' }),
    }),
    lag: z
      .array(z.object({ topic: z.string(), group: z.string(), lag: z.number().int() }))
      .openapi({ description: 'Messages published but not yet processed, per consumer group' }),
    jobs: z.object({ started_total: z.number(), succeeded_total: z.number(), failed_total: z.number() }),
    storage: z.object({ kind: z.string(), size_bytes: z.number() }),
    dropped: z
      .object(
        Object.fromEntries(
          Object.entries(DROP_REASONS).map(([reason, means]) => [reason, z.number().openapi({ description: means })]),
        ) as Record<DropReason, z.ZodNumber>,
      )
      .optional()
      .openapi({
        description:
          'Events let go since each live process started, by reason (summed over instances); absent in snapshots from before it existed',
      }),
    problems: z.array(z.string()),
  })
  .openapi('HealthReport');
export type HealthReport = z.infer<typeof HealthReport>;

export const HealthHistory = z.object({ snapshots: z.array(HealthReport) }).openapi('HealthHistory');

/** GET /v1/status/health/history: a window, newest first, a day of minutes at most. */
export const HealthHistoryQuery = WindowQuery.extend({ limit: limitParam(60, 1440) });
