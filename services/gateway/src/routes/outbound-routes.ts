import { randomUUID } from 'node:crypto';
import { errors } from '@spoor/http';
import {
  AlertPath,
  AlertSchema,
  ChannelPath,
  ChannelSchema,
  CreateAlertRequest,
  CreateChannelRequest,
  CreateScheduleRequest,
  CreateWebhookRequest,
  DeliverySchema,
  RECORD_KINDS,
  ScheduleSchema,
  SchedulePath,
  ScopedList,
  ScopeQuery,
  WebhookCreated,
  WebhookPath,
  WebhookSchema,
  z,
  type AlertData,
  type AuditAction,
  type AuditTargetKind,
  type ChannelData,
  type DeliveryData,
  type ProjectRecord,
  type ScheduleData,
  type WebhookData,
} from '@spoor/schemas';
import type { Store, StoredRecord } from '@spoor/store';
import { checkWebhookUrl, generateWebhookSecret } from '@spoor/webhooks';
import { defineOperation, type RouteContext } from '../operation-route.js';
import { scopedProject } from '../project-scope.js';
import type { Principal } from '../auth-guard.js';
import { changedFields, urlShown } from '../audit/audit-trail.js';
import { recipientRoutes, type ChannelRecipients } from './channel-recipients.js';

/** 'a channel', 'an alert'. */
const article = (noun: string) => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun.toLowerCase()}`;

export interface OutboundOptions {
  clock: () => number;
  /** Caps and confirmations of email recipients (issue 13). */
  recipients: ChannelRecipients;
  /** SPOOR_WEBHOOK_ALLOW_PRIVATE: loopback and private targets allowed. */
  allowPrivate: boolean;
}

type AnyObject = z.ZodType<Record<string, unknown>>;

interface Resource<D extends object, B> {
  kind: string;
  /** Plural path segment and OpenAPI tag: /v1/<plural>. */
  plural: string;
  idParam: string;
  path: z.ZodObject<Record<string, z.ZodString>>;
  create: z.ZodType<B>;
  response: AnyObject;
  created?: AnyObject;
  noun: string;
  build: (body: B, principal: Principal, id: string, now: number) => Promise<D> | D;
  /** Before anything is stored: refuse what the project may not have (caps). */
  check?: (project: ProjectRecord, body: B) => Promise<void>;
  /** After the record is stored (confirmation mails). */
  afterCreate?: (project: ProjectRecord, data: D) => Promise<void>;
  show: (data: D) => Record<string, unknown>;
  /**
   * The audit trail's view of a record (issue 45, item 7): its name, and the fields it shows
   * before and after, never a secret (a webhook's secret, a URL's path and query).
   */
  audited: (data: D) => { name: string | null; fields: Record<string, unknown> };
}

const withScope = (p: ProjectRecord, rest: Record<string, unknown>) => ({
  ...rest,
  origin: p.origin,
  project: p.project,
});

/** List, create, get and delete of one kind of project configuration, stored as records. */
function resourceRoutes<D extends object, B extends { origin: string; project: string }>(
  ctx: RouteContext,
  store: Store,
  clock: () => number,
  r: Resource<D, B>,
): void {
  const one = `/v1/${r.plural}/{${r.idParam}}`;
  const list = z.object({ [r.plural]: z.array(r.response) }).openapi(`${r.noun}List`);
  defineOperation(
    ctx,
    {
      method: 'get',
      path: `/v1/${r.plural}`,
      summary: `The project's ${r.plural}`,
      tag: 'outbound',
      auth: true,
      role: 'viewer',
      query: ScopedList,
      response: list,
      failures: ['not_found'],
    },
    async ({ query, principal }) => {
      const p = await scopedProject(store, principal, query.origin, query.project);
      const rows = await store.records.list<D>(r.kind, p.project_id, { limit: query.limit });
      return { [r.plural]: rows.map((x) => withScope(p, r.show(x.data))) };
    },
  );
  defineOperation(
    ctx,
    {
      method: 'post',
      path: `/v1/${r.plural}`,
      summary: `Creates ${article(r.noun)}`,
      tag: 'outbound',
      auth: true,
      role: 'admin',
      body: r.create,
      response: r.created ?? r.response,
      failures: ['not_found'],
      audit: [`${r.kind}.created` as AuditAction],
    },
    async ({ body, principal, audit }) => {
      const p = await scopedProject(store, principal, body.origin, body.project);
      await r.check?.(p, body);
      const now = clock();
      const id = randomUUID();
      const data = await r.build(body, principal, id, now);
      await store.records.put([
        {
          kind: r.kind,
          project_id: p.project_id,
          id,
          parent_id: '',
          sort_key: now,
          data,
          updated_at: now,
          deleted: false,
        },
      ]);
      const shown = r.audited(data);
      audit.record(p, {
        action: `${r.kind}.created` as AuditAction,
        target: { kind: r.kind as AuditTargetKind, id, name: shown.name },
        changes: changedFields(null, shown.fields, Object.keys(shown.fields)),
      });
      await r.afterCreate?.(p, data);
      return withScope(p, r.created ? (data as Record<string, unknown>) : r.show(data));
    },
  );
  const find = async (principal: Principal, scope: { origin: string; project: string }, id: string) => {
    const p = await scopedProject(store, principal, scope.origin, scope.project);
    const found = await store.records.get<D>(r.kind, p.project_id, id);
    if (!found) throw errors.notFound(`${r.noun} not found`);
    return { p, found };
  };
  defineOperation(
    ctx,
    {
      method: 'get',
      path: one,
      summary: `One ${r.noun.toLowerCase()}`,
      tag: 'outbound',
      auth: true,
      role: 'viewer',
      params: r.path,
      query: ScopeQuery,
      response: r.response,
      failures: ['not_found'],
    },
    async ({ params, query, principal }) => {
      const { p, found } = await find(principal, query, params[r.idParam]!);
      return withScope(p, r.show(found.data));
    },
  );
  defineOperation(
    ctx,
    {
      method: 'delete',
      path: one,
      summary: `Deletes ${article(r.noun)}`,
      tag: 'outbound',
      auth: true,
      role: 'admin',
      params: r.path,
      query: ScopeQuery,
      response: r.response,
      failures: ['not_found'],
      audit: [`${r.kind}.deleted` as AuditAction],
    },
    async ({ params, query, principal, audit }) => {
      const { p, found } = await find(principal, query, params[r.idParam]!);
      await store.records.put([{ ...found, updated_at: Math.max(clock(), found.updated_at + 1), deleted: true }]);
      const shown = r.audited(found.data);
      audit.record(p, {
        action: `${r.kind}.deleted` as AuditAction,
        target: { kind: r.kind as AuditTargetKind, id: found.id, name: shown.name },
        changes: changedFields(shown.fields, null, Object.keys(shown.fields)),
      });
      return withScope(p, r.show(found.data));
    },
  );
}

const hideSecret = ({ secret: _s, ...rest }: WebhookData) => rest;

export function outboundRoutes(ctx: RouteContext, store: Store, opts: OutboundOptions): void {
  const { clock } = opts;
  recipientRoutes(ctx, opts.recipients);
  resourceRoutes<ChannelData, z.infer<typeof CreateChannelRequest>>(ctx, store, clock, {
    kind: RECORD_KINDS.channel,
    plural: 'channels',
    idParam: 'channel_id',
    path: ChannelPath,
    create: CreateChannelRequest,
    response: ChannelSchema,
    noun: 'Channel',
    build: async (b, _p, id, now) => {
      if (b.url) await refuseTarget(b.url, opts.allowPrivate);
      const recipients = b.kind === 'email' ? [...new Set(b.recipients ?? [])] : [];
      return {
        channel_id: id,
        name: b.name,
        kind: b.kind,
        recipients,
        confirmed: [],
        url: b.kind === 'email' ? null : (b.url ?? null),
        created_at: now,
      };
    },
    check: (p, b) => opts.recipients.checkCaps(p, b.kind === 'email' ? (b.recipients ?? []) : []),
    afterCreate: (p, d) => (d.kind === 'email' ? opts.recipients.invite(p, d) : Promise.resolve()),
    show: (d) => ({ ...d, confirmed: d.confirmed ?? [] }),
    audited: (d) => ({
      name: d.name,
      fields: { name: d.name, kind: d.kind, recipients: d.recipients, url: urlShown(d.url) },
    }),
  });
  resourceRoutes<WebhookData, z.infer<typeof CreateWebhookRequest>>(ctx, store, clock, {
    kind: RECORD_KINDS.webhook,
    plural: 'webhooks',
    idParam: 'webhook_id',
    path: WebhookPath,
    create: CreateWebhookRequest,
    response: WebhookSchema,
    created: WebhookCreated,
    noun: 'Webhook',
    build: async (b, _p, id, now) => {
      await refuseTarget(b.url, opts.allowPrivate);
      return {
        webhook_id: id,
        url: b.url,
        events: [...new Set(b.events)],
        description: b.description ?? null,
        secret: generateWebhookSecret(),
        enabled: true,
        disabled_reason: null,
        failing_since: null,
        created_at: now,
      };
    },
    show: hideSecret,
    audited: (d) => ({
      name: d.description ?? urlShown(d.url),
      fields: { url: urlShown(d.url), events: d.events, description: d.description, enabled: d.enabled },
    }),
  });
  resourceRoutes<ScheduleData, z.infer<typeof CreateScheduleRequest>>(ctx, store, clock, {
    kind: RECORD_KINDS.schedule,
    plural: 'schedules',
    idParam: 'schedule_id',
    path: SchedulePath,
    create: CreateScheduleRequest,
    response: ScheduleSchema,
    noun: 'Schedule',
    build: (b, principal, id, now) => ({
      schedule_id: id,
      kind: b.kind,
      interval_ms: b.interval_ms,
      channels: b.channels ?? null,
      enabled: b.enabled,
      account_id: principal.account_id,
      // The first run covers the first whole interval after creation.
      next_run_at: now + b.interval_ms,
      last_run_at: null,
      last_job_id: null,
      created_at: now,
    }),
    check: (p, b) => refuseUnknownChannels(store, p, b.channels),
    show: ({ account_id: _a, ...rest }) => rest,
    audited: (d) => ({
      name: d.kind,
      fields: { kind: d.kind, interval_ms: d.interval_ms, channels: d.channels, enabled: d.enabled },
    }),
  });
  resourceRoutes<AlertData, z.infer<typeof CreateAlertRequest>>(ctx, store, clock, {
    kind: RECORD_KINDS.alert,
    plural: 'alerts',
    idParam: 'alert_id',
    path: AlertPath,
    create: CreateAlertRequest,
    response: AlertSchema,
    noun: 'Alert',
    build: (b, _p, id, now) => ({
      alert_id: id,
      name: b.name,
      condition: b.condition,
      channels: b.channels ?? null,
      firing: false,
      last_fired_at: null,
      created_at: now,
    }),
    check: (p, b) => refuseUnknownChannels(store, p, b.channels),
    show: (d) => ({ ...d }),
    audited: (d) => ({ name: d.name, fields: { name: d.name, condition: d.condition, channels: d.channels } }),
  });

  defineOperation(
    ctx,
    {
      method: 'post',
      path: '/v1/webhooks/{webhook_id}/enable',
      summary: 'Enables a webhook again (after 410 Gone or days of failures disabled it)',
      tag: 'outbound',
      auth: true,
      role: 'admin',
      params: WebhookPath,
      body: ScopeQuery.openapi('ScopeBody'),
      response: WebhookSchema,
      failures: ['not_found'],
      audit: ['webhook.enabled'],
    },
    async ({ params, body, principal, audit }) => {
      const p = await scopedProject(store, principal, body.origin, body.project);
      const found = await store.records.get<WebhookData>(RECORD_KINDS.webhook, p.project_id, params.webhook_id);
      if (!found) throw errors.notFound('Webhook not found');
      const data: WebhookData = { ...found.data, enabled: true, disabled_reason: null, failing_since: null };
      await store.records.put([{ ...found, data, updated_at: Math.max(clock(), found.updated_at + 1) }]);
      audit.record(p, {
        action: 'webhook.enabled',
        target: { kind: 'webhook', id: found.id, name: data.description ?? urlShown(data.url) },
        changes: changedFields(found.data, data, ['enabled', 'disabled_reason', 'failing_since']),
      });
      return { ...hideSecret(data), origin: p.origin, project: p.project };
    },
  );

  const DeliveryQuery = ScopedList;
  defineOperation(
    ctx,
    {
      method: 'get',
      path: '/v1/webhooks/{webhook_id}/deliveries',
      summary: "A webhook's deliveries, newest first: status, attempts, the last answer",
      tag: 'outbound',
      auth: true,
      role: 'viewer',
      params: WebhookPath,
      query: DeliveryQuery,
      response: z.object({ deliveries: z.array(DeliverySchema) }).openapi('WebhookDeliveryList'),
      failures: ['not_found'],
    },
    async ({ params, query, principal }) => {
      const p = await scopedProject(store, principal, query.origin, query.project);
      if (!(await store.records.get(RECORD_KINDS.webhook, p.project_id, params.webhook_id)))
        throw errors.notFound('Webhook not found');
      const rows: Array<StoredRecord<DeliveryData>> = await store.records.list<DeliveryData>(
        RECORD_KINDS.delivery,
        p.project_id,
        { parent_id: params.webhook_id, limit: query.limit },
      );
      return { deliveries: rows.map((d) => d.data) };
    },
  );
}

/** SSRF (DESIGN.md, webhooks): refused at creation, and the worker checks again at connection time. */
async function refuseTarget(url: string, allowPrivate: boolean): Promise<void> {
  const verdict = await checkWebhookUrl(url, { allowPrivate });
  if (!verdict.ok) throw errors.validation([{ loc: ['body', 'url'], msg: verdict.reason, type: 'value_error' }]);
}

/**
 * A schedule or alert names only channels of its own project, checked when it is saved, where it
 * used to be saved and fail at its first send (issue 42). A channel of another project, another
 * account's included, answers the same 404 as an id that never existed, as a body's origin and
 * project do (project-scope.ts): a different answer would confirm that the id exists elsewhere.
 */
async function refuseUnknownChannels(store: Store, p: ProjectRecord, ids: string[] | undefined): Promise<void> {
  for (const id of new Set(ids ?? [])) {
    if (!(await store.records.get(RECORD_KINDS.channel, p.project_id, id)))
      throw errors.notFound(`Channel not found: ${id}`);
  }
}
