import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { TRACEPARENT, type DeliveredMessage } from '@spoor/bus';
import type { EnrichedDraft, EnrichmentPipeline } from '@spoor/enrich';
import type { Kv } from '@spoor/kv';
import type { DedupWindow } from './dedup-window.js';
import type { Logger } from '@spoor/service-log';
import type { DropCounts, EnrichedEvent, RawEvent, SessionInput } from '@spoor/schemas';
import type { EventPair, Store } from '@spoor/store';
import type { IpPolicyCache } from './ip-policy-cache.js';
import { assignSessions } from './session-assigner.js';

/**
 * Where enriched events go once stored: published on `events.enriched`, or handed to the
 * sessionizer of this process (SPOOR_HANDOFF=local). Either way before the batch's offset commits.
 */
export type EnrichedOutput = (events: SessionInput[]) => Promise<void>;

export interface EnricherDeps {
  store: Store;
  kv: Kv;
  dedup: DedupWindow;
  pipeline: EnrichmentPipeline;
  /** Each project's IP policy; without it every event takes the pipeline's SPOOR_IP_MODE. */
  ipPolicies?: IpPolicyCache;
  output: EnrichedOutput;
  logger: Logger;
}

/**
 * Messages handled between two turns of the event loop. In the one-process mode ingest answers
 * on the same thread: a batch of thousands parsed or enriched in one go held those answers for
 * tens of milliseconds (p99, issue 14).
 */
const YIELD_EVERY = 128;

/** One raw message on its way through the steps; each step fills in what it knows. */
interface Candidate {
  /** This batch's own parse of the message: the steps may fill it in (a retry parses again). */
  raw: RawEvent;
  /** topic/partition, and the offset within it: dedup's claim and the sessionizer's replay mark. */
  source: string;
  offset: number;
  /** The message's traceparent header (ingest's request), passed on with the enriched event. */
  traceparent: string | undefined;
}

interface Enriched extends Candidate {
  draft: EnrichedDraft;
  sessionKey: string;
}

/**
 * Consumes raw events as named steps — drop duplicates → enrich → assign sessions → write →
 * pass on — (Plausible's ingestion pipeline is the model). The offset is committed by the bus
 * only after all of them succeeded, so a crash replays, never loses; every step is idempotent.
 */
export class EnricherService {
  private readonly counters: Record<string, number> = { duplicate: 0, malformed: 0 };
  /** Calls not yet settled: the bus may hand over the next batch before this one resolved. */
  private pending = 0;
  /** The latest call's three steps: the next call's steps each wait on theirs. */
  private prepared: Promise<unknown> = Promise.resolve();
  private written: Promise<unknown> = Promise.resolve();
  private passed: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: EnricherDeps) {}

  /**
   * Handles one batch. Calls may overlap (the bus's `inFlight`, issue 14): a batch is parsed,
   * deduplicated, enriched and given sessions while the previous one is still being written,
   * and written while the previous one is being sessionized, so the thread works while the
   * store commits. Each step still runs in batch order: a batch's step starts after the same
   * step of the previous batch succeeded, and not at all when that failed (the bus then delivers
   * both again; dedup lets a message through again at its own position, a stored row is kept).
   */
  handle(batch: DeliveredMessage[]): Promise<void> {
    if (this.pending === 0) this.prepared = this.written = this.passed = Promise.resolve();
    this.pending++;
    const prepared = this.prepared.then(() => this.prepare(batch));
    const written = Promise.all([prepared, this.written]).then(([enriched]) => this.write(enriched));
    const passed = Promise.all([written, this.passed]).then(([events]) =>
      events.length > 0 ? this.deps.output(events) : undefined,
    );
    this.prepared = prepared;
    this.written = written;
    this.passed = passed;
    // Seen by the next call or the bus; these keep a rejection from counting as unhandled meanwhile.
    for (const step of [prepared, written, passed]) step.catch(() => undefined);
    // Settled only once every step of this batch has: a batch failed because the one before it
    // did may still be writing, and the bus must not deliver again while it is.
    return Promise.allSettled([prepared, written, passed])
      .then(() => passed)
      .finally(() => this.pending--);
  }

  private async prepare(batch: DeliveredMessage[]): Promise<Enriched[]> {
    const enriched = await this.enrich(await this.dropDuplicates(await this.parse(batch)));
    if (enriched.length > 0) await assignSessions(enriched, this.deps.kv);
    return enriched;
  }

  stats(): Record<string, number> {
    return { ...this.counters, ...this.deps.pipeline.counters() };
  }

  drops(): DropCounts {
    const guards = this.deps.pipeline.counters();
    return {
      duplicate: this.counters['duplicate'],
      malformed: this.counters['malformed'],
      invalid_timestamp: guards.invalid_timestamp,
      payload_too_deep: guards.payload_too_deep,
    };
  }

  /** The bus carries what ingest wrote; anything else (a foreign producer, a bad byte) is counted and skipped. */
  private async parse(batch: DeliveredMessage[]): Promise<Candidate[]> {
    const out: Candidate[] = [];
    for (const [i, m] of batch.entries()) {
      if (i > 0 && i % YIELD_EVERY === 0) await yieldToLoop();
      const raw = parseRawEvent(m.value);
      if (raw)
        out.push({
          raw,
          source: `${m.topic}/${m.partition}`,
          offset: Number(m.offset),
          traceparent: m.headers?.[TRACEPARENT],
        });
      else this.counters['malformed']!++;
    }
    return out;
  }

  /**
   * A repeated (project, event_id) is dropped here, except when it is this very message being
   * redelivered after a crash (same topic position): that one must go through again.
   */
  private async dropDuplicates(candidates: Candidate[]): Promise<Candidate[]> {
    const byKey = new Map<string, Candidate>();
    for (const c of candidates) {
      const key = `${c.raw.project_id}:${c.raw.event_id}`;
      if (byKey.has(key)) this.counters['duplicate']!++;
      else byKey.set(key, c);
    }
    const entries = [...byKey];
    const passed = await this.deps.dedup.claim(
      entries.map(([, c]) => ({
        projectId: c.raw.project_id,
        eventId: c.raw.event_id,
        position: `${c.source}/${c.offset}`,
      })),
    );
    const out: Candidate[] = [];
    entries.forEach(([, c], i) => {
      if (passed[i]) out.push(c);
      else this.counters['duplicate']!++;
    });
    return out;
  }

  /**
   * A message that cannot be enriched would otherwise block its partition forever (the bus
   * retries a failing batch): it is logged, counted as `malformed` and skipped. The pipeline's
   * own drops (timestamp, payload depth) are counted by the pipeline.
   */
  private async enrich(candidates: Candidate[]): Promise<Enriched[]> {
    const out: Enriched[] = [];
    const policies = this.deps.ipPolicies;
    await policies?.load(candidates.map((c) => c.raw.project_id));
    for (const [i, c] of candidates.entries()) {
      if (i > 0 && i % YIELD_EVERY === 0) await yieldToLoop();
      try {
        const result = this.deps.pipeline.enrich(c.raw, policies?.policyOf(c.raw.project_id));
        if (result.ok) out.push({ ...c, draft: result.event, sessionKey: result.sessionKey });
      } catch (err) {
        this.counters['malformed']!++;
        this.deps.logger.error('skipping an event that cannot be enriched', { err, event_id: c.raw.event_id });
      }
    }
    return out;
  }

  /** Raw and enriched rows (idempotent inserts keyed by project and event id); the raw row gets the derived session id too. */
  private async write(items: Enriched[]): Promise<SessionInput[]> {
    const pairs: EventPair[] = [];
    const out: SessionInput[] = [];
    for (const c of items) {
      c.raw.session_id ??= c.draft.session_id;
      // The raw row stores the IP as the policy left it too: a full address kept beside a
      // hashed one would undo the policy (geo and the session key already read the original).
      c.raw.ip = c.draft.ip;
      const event = c.draft as EnrichedEvent;
      pairs.push({ raw: c.raw, enriched: event });
      out.push({ event, source: c.source, offset: c.offset, traceparent: c.traceparent });
    }
    if (pairs.length > 0) await this.deps.store.events.insertEvents(pairs);
    return out;
  }
}

function parseRawEvent(value: string): RawEvent | null {
  try {
    const raw = JSON.parse(value) as RawEvent;
    return typeof raw?.event_id === 'string' && typeof raw.project_id === 'string' && typeof raw.timestamp === 'number'
      ? raw
      : null;
  } catch {
    return null;
  }
}
