import { createHash } from 'node:crypto';
import type { Kv } from '@spoor/kv';
import type { Logger } from '@spoor/service-log';
import {
  kvKeys,
  kvTtlMs,
  RECORD_KINDS,
  type DeliveryData,
  type ProjectRecord,
  type WebhookData,
  type WebhookEventType,
} from '@spoor/schemas';
import type { Store, StoredRecord } from '@spoor/store';
import { DISABLE_AFTER_MS, nextRetryDelay, postJson, webhookHeaders, type DeliveryOutcome } from '@spoor/webhooks';

export interface OutboxDeps {
  store: Store;
  kv: Kv;
  clock: () => number;
  logger: Logger;
  /** SPOOR_WEBHOOK_ALLOW_PRIVATE */
  allowPrivate: boolean;
  /** This process, for attempt claims. */
  instance: string;
  /** The wait before attempt n+1 (null: give up); defaults to the Standard Webhooks-style schedule of @spoor/webhooks. */
  retryDelay?: (attempt: number, retryAfterMs: number | null) => number | null;
  /** SPOOR_WEBHOOK_RETRY_BASE_MS: the first wait of the default schedule. */
  retryBaseMs?: number;
  /** Told when an endpoint gets disabled (410, or failing for days), to tell its owner. */
  onDisabled?: (project: ProjectRecord, webhook: WebhookData) => Promise<void>;
  post?: typeof postJson;
}

const EMITTED_TTL_MS = kvTtlMs.webhookEmitted;
const emittedKey = kvKeys.webhookEmitted;

/** One event to announce: its data and a key that makes a redelivered announcement the same delivery. */
export interface OutboxEvent {
  key: string;
  data: Record<string, unknown>;
}

/**
 * Outgoing webhooks (DESIGN.md, webhooks): an event becomes one delivery record per subscribed
 * endpoint plus a small "pending" index record; attempts run from that index, each claimed in
 * the KV so that one worker makes it, and a failed attempt is put back with its next time.
 */
export class WebhookOutbox {
  private draining: Promise<void> | null = null;
  private readonly post: typeof postJson;
  private readonly retryDelay: (attempt: number, retryAfterMs: number | null) => number | null;

  constructor(private readonly deps: OutboxDeps) {
    this.post = deps.post ?? postJson;
    this.retryDelay = deps.retryDelay ?? ((n, after) => nextRetryDelay(n, after, Math.random, deps.retryBaseMs));
  }

  emit(project: ProjectRecord, type: WebhookEventType, data: Record<string, unknown>): Promise<number> {
    return this.emitMany(project, type, [{ key: `${type}:${this.deps.clock()}:${Math.random()}`, data }]);
  }

  /** Records the deliveries of `events` to every enabled endpoint subscribed to `type`; answers how many. */
  async emitMany(project: ProjectRecord, type: WebhookEventType, events: OutboxEvent[]): Promise<number> {
    const hooks = (
      await this.deps.store.records.list<WebhookData>(RECORD_KINDS.webhook, project.project_id, { limit: 1000 })
    ).filter((h) => h.data.enabled && h.data.events.includes(type));
    if (hooks.length === 0 || events.length === 0) return 0;
    const now = this.deps.clock();
    const planned = hooks.flatMap((h) =>
      events.map((e) => ({
        h,
        e,
        id: `msg_${createHash('sha256').update(`${h.id}\n${type}\n${e.key}`).digest('hex').slice(0, 32)}`,
      })),
    );
    // A redelivered announcement finds its deliveries recorded: one KV round trip, not a read per delivery.
    const seen = await this.deps.kv.mget(planned.map((p) => emittedKey(p.id)));
    const fresh = planned.filter((_, i) => seen[i] === null);
    const records: Array<StoredRecord<unknown>> = [];
    for (const { h, e, id } of fresh) {
      const payload = {
        type,
        timestamp: new Date(now).toISOString(),
        data: { origin: project.origin, project: project.project, ...e.data },
      };
      const delivery: DeliveryData = {
        delivery_id: id,
        webhook_id: h.id,
        event_type: type,
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        response_status: null,
        response_body: null,
        error: null,
        created_at: now,
        updated_at: now,
        payload,
      };
      records.push(this.record(RECORD_KINDS.delivery, project.project_id, delivery, now, now));
      records.push(this.record(RECORD_KINDS.pendingDelivery, project.project_id, delivery, now, now));
    }
    if (records.length === 0) return 0;
    await this.deps.store.records.put(records);
    // Marked after the write: a crash in between sends again with the same webhook-id, which receivers dedupe on.
    await this.deps.kv.mset(fresh.map((p) => ({ key: emittedKey(p.id), value: '1', ttlMs: EMITTED_TTL_MS })));
    this.kick();
    return records.length / 2;
  }

  /** Starts a pass over due deliveries unless one runs; never throws. */
  kick(): Promise<void> {
    this.draining ??= this.drain()
      .catch((err) => this.deps.logger.warn('webhook delivery pass failed', { err }))
      .finally(() => {
        this.draining = null;
      });
    return this.draining;
  }

  /** Attempts every due delivery, a few at a time. */
  private async drain(): Promise<void> {
    const now = this.deps.clock();
    const due = (await this.deps.store.records.listAll(RECORD_KINDS.pendingDelivery, 1000)).filter(
      (p) => p.sort_key <= now,
    );
    for (let i = 0; i < due.length; i += 8) await Promise.all(due.slice(i, i + 8).map((p) => this.attempt(p)));
  }

  private record(
    kind: string,
    projectId: string,
    d: DeliveryData,
    sortKey: number,
    now: number,
    deleted = false,
  ): StoredRecord<unknown> {
    const data = kind === RECORD_KINDS.delivery ? d : { webhook_id: d.webhook_id };
    return {
      kind,
      project_id: projectId,
      id: d.delivery_id,
      parent_id: d.webhook_id,
      sort_key: sortKey,
      data,
      updated_at: now,
      deleted,
    };
  }

  private async attempt(pending: StoredRecord<unknown>): Promise<void> {
    const { store, kv } = this.deps;
    const found = await store.records.get<DeliveryData>(RECORD_KINDS.delivery, pending.project_id, pending.id);
    const d = found?.data;
    if (!d || d.status !== 'pending') {
      await store.records.put([
        { ...pending, updated_at: Math.max(this.deps.clock(), pending.updated_at + 1), deleted: true },
      ]);
      return;
    }
    if (
      !(await kv.setIfAbsent(
        kvKeys.webhookAttempt(d.delivery_id, d.attempts),
        this.deps.instance,
        kvTtlMs.webhookAttempt,
      ))
    )
      return;
    const hook = await store.records.get<WebhookData>(RECORD_KINDS.webhook, pending.project_id, d.webhook_id);
    const started = this.deps.clock();
    const outcome: DeliveryOutcome =
      hook && hook.data.enabled
        ? await this.send(hook.data, d)
        : {
            ok: false,
            status: null,
            duration_ms: 0,
            response_body: '',
            retry_after_ms: null,
            error: 'the webhook was deleted or disabled',
            permanent: true,
          };
    await this.settle(pending.project_id, d, hook, outcome, started);
  }

  private send(hook: WebhookData, d: DeliveryData): Promise<DeliveryOutcome> {
    const body = JSON.stringify(d.payload);
    const headers = webhookHeaders(hook.secret, d.delivery_id, Math.floor(this.deps.clock() / 1000), body);
    return this.post(hook.url, body, { headers, allowPrivate: this.deps.allowPrivate, userAgent: 'Spoor-Webhooks/1' });
  }

  private async settle(
    projectId: string,
    d: DeliveryData,
    hook: StoredRecord<WebhookData> | null,
    o: DeliveryOutcome,
    started: number,
  ): Promise<void> {
    const now = Math.max(this.deps.clock(), d.updated_at + 1);
    const attempts = d.attempts + 1;
    const wait = o.ok || o.permanent ? null : this.retryDelay(attempts, o.retry_after_ms);
    const status: DeliveryData['status'] = o.ok ? 'succeeded' : wait === null ? 'failed' : 'pending';
    const next: DeliveryData = {
      ...d,
      status,
      attempts,
      next_attempt_at: status === 'pending' ? started + wait! : null,
      response_status: o.status,
      response_body: o.response_body || null,
      error: o.error,
      updated_at: now,
    };
    await this.deps.store.records.put([
      this.record(RECORD_KINDS.delivery, projectId, next, d.created_at, now),
      this.record(
        RECORD_KINDS.pendingDelivery,
        projectId,
        next,
        next.next_attempt_at ?? now,
        now,
        status !== 'pending',
      ),
    ]);
    if (hook) await this.track(projectId, hook, o, now);
  }

  /** An endpoint's health: a success clears failing_since; 410 or days of failures disable it. */
  private async track(
    projectId: string,
    hook: StoredRecord<WebhookData>,
    o: DeliveryOutcome,
    now: number,
  ): Promise<void> {
    const h = hook.data;
    if (!h.enabled) return;
    let next: WebhookData | null = null;
    if (o.ok) next = h.failing_since === null ? null : { ...h, failing_since: null };
    else {
      const since = h.failing_since ?? now;
      const reason =
        o.status === 410
          ? 'The endpoint answered 410 Gone'
          : now - since >= DISABLE_AFTER_MS
            ? `Every delivery failed since ${new Date(since).toISOString()}`
            : null;
      next = { ...h, failing_since: since, ...(reason ? { enabled: false, disabled_reason: reason } : {}) };
      if (h.failing_since === since && !reason) next = null;
    }
    if (!next) return;
    await this.deps.store.records.put([{ ...hook, data: next, updated_at: Math.max(now, hook.updated_at + 1) }]);
    if (!next.enabled && this.deps.onDisabled) {
      const project = await this.deps.store.projects.get(projectId);
      if (project)
        await this.deps
          .onDisabled(project, next)
          .catch((err) => this.deps.logger.warn('could not tell the owner of a disabled webhook', { err }));
    }
  }
}
