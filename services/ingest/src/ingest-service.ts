import { continueTrace, TRACEPARENT, type Bus, type OutgoingMessage } from '@spoor/bus';
import { errors, HttpError } from '@spoor/http';
import { clientKey, type RateLimits } from '@spoor/limits';
import type { Logger } from '@spoor/service-log';
import type { DropCounts, ProjectRecord, RawEvent } from '@spoor/schemas';
import {
  checkEventTime,
  partitionKey,
  resolveProject,
  stampEvent,
  validateEvents,
  type RequestFacts,
} from './event-intake.js';
import type { ProjectResolver } from './project-resolver.js';

export interface IngestDeps {
  bus: Bus;
  /** Events per second per client address and per project (issue 13). */
  limits?: RateLimits;
  topic: string;
  projects: ProjectResolver;
  clock: () => number;
  logger: Logger;
  /**
   * How long a publish may wait for the bus before the request is answered 503 with Retry-After
   * (SPOOR_INGEST_PUBLISH_TIMEOUT_MS, issue 16): a broker that is away never holds a client.
   */
  publishTimeoutMs?: number;
  /**
   * Backpressure (SPOOR_INGEST_MAX_LAG, issue 16): true while the consumers are too far behind;
   * events are then refused with 503 and Retry-After rather than piled onto the backlog.
   */
  behind?: () => boolean;
  /** Test-only fault (config SPOOR_UNSAFE_ACK_BEFORE_WRITE): answer before the bus acknowledged. */
  unsafeAckBeforeWrite?: boolean;
}

export interface IngestResult {
  accepted: number;
  event_ids: string[];
}

/** Seconds a refused client waits: the logger retries after Retry-After, with its own back-off. */
const BACKPRESSURE_RETRY_AFTER_S = 5;

/**
 * The ingest use case, free of express: validate every event (all or nothing), resolve and check
 * its project, stamp it, and resolve only after the bus acknowledged the write.
 */
export class IngestService {
  private readonly counters = { accepted: 0, rejected: 0, publish_failures: 0, backpressure: 0 };
  /** Refused events by reason: 429 rate_limited, 503 unavailable, any other refusal invalid. */
  private readonly refused = { invalid: 0, rate_limited: 0, unavailable: 0 };
  private unsafeBuffer: OutgoingMessage[] = [];
  private lastFailureLog = 0;

  constructor(private readonly deps: IngestDeps) {
    // Half a second of acknowledged events in memory: a SIGKILL then always finds some to lose
    // (at 50 ms, a loaded machine sometimes killed the process just after a flush).
    if (deps.unsafeAckBeforeWrite) setInterval(() => this.flushUnsafe(), 500).unref();
  }

  /**
   * Not async, nor is anything after the validation: an async function keeps its arguments and
   * locals alive across every await, and the parsed body's strings are slices of the whole request
   * body. Only the messages and the ids go on to the write (issue 14).
   */
  ingest(items: unknown[], facts: RequestFacts, prefix: (i: number) => Array<string | number>): Promise<IngestResult> {
    const count = items.length;
    return this.prepare(items, facts, prefix)
      .then(({ messages, eventIds }) =>
        this.publish(messages).then(() => {
          this.counters.accepted += eventIds.length;
          return { accepted: eventIds.length, event_ids: eventIds };
        }),
      )
      .catch((err: unknown) => {
        this.counters.rejected += count;
        const status = err instanceof HttpError ? err.status : 500;
        this.refused[status === 429 ? 'rate_limited' : status >= 500 ? 'unavailable' : 'invalid'] += count;
        throw err;
      });
  }

  /** Validates, spends the rate limits, resolves the projects and stamps: the messages to write. */
  private async prepare(
    items: unknown[],
    facts: RequestFacts,
    prefix: (i: number) => Array<string | number>,
  ): Promise<{ messages: OutgoingMessage[]; eventIds: string[] }> {
    const events = validateEvents(items, prefix, facts.bodyBytes);
    await this.deps.limits?.spend('ingest_ip', clientKey(facts.ip), events.length);
    const receivedAt = this.deps.clock();
    const raw: RawEvent[] = [];
    // A batch is one tab's events: one lookup (two origin parses) per project in it, not per event.
    const projects = new Map<string, Promise<ProjectRecord>>();
    for (const [i, event] of events.entries()) {
      const key = `${event.origin ?? ''}\u0000${event.project}`;
      let project = projects.get(key);
      if (!project) projects.set(key, (project = resolveProject(event, facts, this.deps.projects)));
      const stamped = stampEvent(event, await project, facts, receivedAt);
      checkEventTime(event, stamped, prefix(i));
      raw.push(stamped);
    }
    await this.spendPerProject(raw);
    if (this.deps.behind?.()) {
      this.counters.backpressure += raw.length;
      throw errors.unavailable('The pipeline is behind; retry later', BACKPRESSURE_RETRY_AFTER_S);
    }
    return { messages: this.messagesOf(raw, facts.traceparent), eventIds: raw.map((e) => e.event_id) };
  }

  /** One project's points per request in the usual case (a batch is one tab's events). */
  private async spendPerProject(raw: RawEvent[]): Promise<void> {
    const limits = this.deps.limits;
    if (!limits) return;
    const perProject = new Map<string, number>();
    for (const e of raw) perProject.set(e.project_id, (perProject.get(e.project_id) ?? 0) + 1);
    for (const [projectId, n] of perProject) await limits.spend('ingest_project', projectId, n);
  }

  stats(): Record<string, number> {
    return { ...this.counters };
  }

  drops(): DropCounts {
    return { ...this.refused };
  }

  /** One trace per request: its events carry it through every consumer's log lines (issue 19). */
  private messagesOf(raw: RawEvent[], traceparent: string | undefined): OutgoingMessage[] {
    const headers = { [TRACEPARENT]: continueTrace(traceparent) };
    return raw.map((e) => ({ key: partitionKey(e), value: JSON.stringify(e), headers }));
  }

  /** Not async either: the write's wait holds no frame of this service. */
  private publish(messages: OutgoingMessage[]): Promise<void> {
    if (this.deps.unsafeAckBeforeWrite) {
      this.unsafeBuffer.push(...messages);
      return Promise.resolve();
    }
    return this.deps.bus.publish(this.deps.topic, messages, { timeoutMs: this.deps.publishTimeoutMs }).catch((err) => {
      this.counters.publish_failures++;
      // Once per 5 s while the bus is away, not once per request (issue 16): the count is in
      // publish_failures (/metrics, /v1/status/health).
      const now = Date.now();
      if (now - this.lastFailureLog >= 5_000) {
        this.lastFailureLog = now;
        this.deps.logger.error('publish failed', { err, publish_failures: this.counters.publish_failures });
      }
      throw errors.unavailable('Event bus unavailable; retry later', 2);
    });
  }

  private flushUnsafe(): void {
    const batch = this.unsafeBuffer;
    this.unsafeBuffer = [];
    if (batch.length) void this.deps.bus.publish(this.deps.topic, batch);
  }
}
