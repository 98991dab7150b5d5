// Configuration the spec leaves out (DESIGN.md, Jobs, notifications, webhooks): channels,
// webhooks and their deliveries, schedules, alerts; and the results the worker stores.
import { z, EpochMs } from '../zod.js';
import { Overview, TransitionMatrix } from '../overview.js';
import { Origin, ProjectName, ScopeQuery, limitParam } from './common.js';

const Text = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^\u0000-\u001f]+$/, 'must not contain control characters');
const Id = z.string().min(1).max(64);
const Scope = { origin: Origin, project: ProjectName };
const HttpUrl = z
  .string()
  .max(2048)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), { message: 'must be an http or https URL' });
const Email = z
  .string()
  .max(254)
  .regex(/^[^\s@<>,;"]+@[^\s@<>,;"]+$/, 'must be an email address');
const ChannelIds = z
  .array(Id)
  .max(20)
  .optional()
  .openapi({ description: 'Channel ids; every channel of the project when left out' });

export const CHANNEL_KINDS = ['email', 'slack', 'discord', 'mattermost'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export const CreateChannelRequest = z
  .object({
    ...Scope,
    name: Text(100),
    kind: z.enum(CHANNEL_KINDS),
    recipients: z.array(Email).min(1).max(20).optional().openapi({ description: 'Email channels: the addresses' }),
    url: HttpUrl.optional().openapi({ description: 'Chat channels: the incoming-webhook URL' }),
  })
  .superRefine((c, ctx) => {
    if (c.kind === 'email' && !c.recipients)
      ctx.addIssue({
        code: 'custom',
        path: ['recipients'],
        message: 'An email channel needs recipients',
        params: { type: 'missing' },
      });
    if (c.kind !== 'email' && !c.url)
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message: 'A chat channel needs the incoming-webhook url',
        params: { type: 'missing' },
      });
  })
  .openapi('CreateChannelRequest');

export const ChannelSchema = z
  .object({
    channel_id: z.string(),
    origin: z.string(),
    project: z.string(),
    name: z.string(),
    kind: z.enum(CHANNEL_KINDS),
    recipients: z.array(z.string()),
    confirmed: z.array(z.string()).openapi({
      description: 'Email recipients who followed the link of their confirmation mail; only they get mail',
    }),
    url: z.string().nullable(),
    created_at: EpochMs,
  })
  .openapi('Channel');

export const RecipientConfirmQuery = z.object({
  token: z.string().min(1).max(200).openapi({ description: 'From the link of a confirmation mail' }),
});
export const RecipientConfirmed = z
  .object({ confirmed: z.literal(true), address: z.string(), channel: z.string() })
  .openapi('RecipientConfirmed');

export const WEBHOOK_EVENTS = ['rule.matched', 'threshold.crossed', 'digest.created'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

export const CreateWebhookRequest = z
  .object({
    ...Scope,
    url: HttpUrl,
    events: z.array(z.enum(WEBHOOK_EVENTS)).min(1).max(WEBHOOK_EVENTS.length),
    description: Text(200).optional(),
  })
  .openapi('CreateWebhookRequest');
export const WebhookSchema = z
  .object({
    webhook_id: z.string(),
    origin: z.string(),
    project: z.string(),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    description: z.string().nullable(),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable(),
    failing_since: EpochMs.nullable(),
    created_at: EpochMs,
  })
  .openapi('Webhook');
export const WebhookCreated = WebhookSchema.extend({
  secret: z.string().openapi({ description: 'Standard Webhooks signing secret (whsec_…); shown once' }),
}).openapi('WebhookCreated');

export const DeliverySchema = z
  .object({
    delivery_id: z.string().openapi({ description: 'Also the webhook-id header' }),
    webhook_id: z.string(),
    event_type: z.enum(WEBHOOK_EVENTS),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.number().int(),
    next_attempt_at: EpochMs.nullable(),
    response_status: z.number().int().nullable(),
    response_body: z.string().nullable(),
    error: z.string().nullable(),
    created_at: EpochMs,
    updated_at: EpochMs,
    payload: z.record(z.string(), z.unknown()),
  })
  .openapi('WebhookDelivery');

export const SCHEDULE_KINDS = ['aggregation', 'notification', 'transitions'] as const;
export const CreateScheduleRequest = z
  .object({
    ...Scope,
    kind: z.enum(SCHEDULE_KINDS),
    interval_ms: z
      .number()
      .int()
      .min(60_000)
      .max(31 * 24 * 3_600_000)
      .openapi({ description: 'Every run covers the interval that just ended' }),
    channels: ChannelIds,
    enabled: z.boolean().default(true),
  })
  .openapi('CreateScheduleRequest');
export const ScheduleSchema = z
  .object({
    schedule_id: z.string(),
    origin: z.string(),
    project: z.string(),
    kind: z.enum(SCHEDULE_KINDS),
    interval_ms: z.number().int(),
    channels: z.array(z.string()).nullable(),
    enabled: z.boolean(),
    next_run_at: EpochMs,
    last_run_at: EpochMs.nullable(),
    last_job_id: z.string().nullable(),
    created_at: EpochMs,
  })
  .openapi('Schedule');

const AlertCondition = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('tag_count'),
      tag: Text(200),
      threshold: z.number().int().min(0),
      window_ms: z
        .number()
        .int()
        .min(60_000)
        .max(7 * 24 * 3_600_000),
    })
    .openapi({ description: 'Fires when more than `threshold` sessions got `tag` within the last window_ms' }),
  z
    .object({
      type: z.literal('action_absent'),
      action: Text(200),
      window_ms: z
        .number()
        .int()
        .min(60_000)
        .max(30 * 24 * 3_600_000),
    })
    .openapi({ description: 'Fires when `action` was not seen for window_ms' }),
  z
    .object({ type: z.literal('rule_match'), rule_id: Text(200) })
    .openapi({ description: 'Fires when a classification rule newly matches a session' }),
]);
export const CreateAlertRequest = z
  .object({ ...Scope, name: Text(100), condition: AlertCondition, channels: ChannelIds })
  .openapi('CreateAlertRequest');
export const AlertSchema = z
  .object({
    alert_id: z.string(),
    origin: z.string(),
    project: z.string(),
    name: z.string(),
    condition: AlertCondition,
    channels: z.array(z.string()).nullable(),
    firing: z.boolean(),
    last_fired_at: EpochMs.nullable(),
    created_at: EpochMs,
  })
  .openapi('Alert');

export const ChannelPath = z.object({ channel_id: Id });
export const WebhookPath = z.object({ webhook_id: Id });
export const SchedulePath = z.object({ schedule_id: Id });
export const AlertPath = z.object({ alert_id: Id });
export const ScopedList = ScopeQuery.extend({ limit: limitParam(50, 1000) });
export const OverviewQuery = ScopeQuery.extend({ limit: limitParam(10, 100) });
export const OverviewList = z.object({ overviews: z.array(Overview) }).openapi('OverviewList');
export const TransitionsResponse = TransitionMatrix;
