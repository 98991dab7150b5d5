import type { Bus, DeliveredMessage } from '@spoor/bus';
import type { EnrichmentPipeline, EnrichResult } from '@spoor/enrich';
import type { Kv } from '@spoor/kv';
import type { Logger } from '@spoor/log';
import type { EnrichedEvent, RawEvent } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { assignSessions } from './session-assigner.js';

export interface EnricherDeps {
  bus: Bus;
  store: Store;
  kv: Kv;
  pipeline: EnrichmentPipeline;
  outputTopic: string;
  logger: Logger;
}

/** Client retries come within minutes; a repeated event_id within this window is dropped early. */
const DEDUP_TTL_MS = 6 * 60 * 60 * 1000;

/**
 * Consumes raw events: drops repeats of an event_id, enriches, assigns sessions, stores raw and
 * enriched events (idempotent inserts), then passes enriched events on. The offset is committed
 * by the bus only after all of that succeeded, so a crash replays, never loses.
 */
export class EnricherService {
  private readonly counters: Record<string, number> = { duplicate: 0, malformed: 0 };

  constructor(private readonly deps: EnricherDeps) {}

  async handle(batch: DeliveredMessage[]): Promise<void> {
    const fresh = await this.dropDuplicates(batch);
    const enrichable: Array<{ raw: RawEvent; enriched: Omit<EnrichedEvent, 'session_id'> & { session_id: string | null; sessionKey: string } }> = [];
    for (const raw of fresh) {
      const result = this.enrichOne(raw);
      if (result?.ok) enrichable.push({ raw, enriched: { ...result.event, sessionKey: result.sessionKey } });
    }
    if (enrichable.length === 0) return;
    const withSessions = await assignSessions(enrichable.map((e) => e.enriched), this.deps.kv);
    const enriched: EnrichedEvent[] = withSessions.map(({ sessionKey: _k, ...e }) => e);
    const raws = enrichable.map((e, i) => ({ ...e.raw, session_id: e.raw.session_id ?? enriched[i]!.session_id }));
    await this.deps.store.events.insertRaw(raws);
    await this.deps.store.events.insertEnriched(enriched);
    await this.deps.bus.publish(
      this.deps.outputTopic,
      enriched.map((e) => ({ key: `${e.project_id}:${e.session_id}`, value: JSON.stringify(e) })),
    );
  }

  /**
   * A message that cannot be enriched would otherwise block its partition forever (the bus
   * retries a failing batch): it is logged, counted as `malformed` and skipped.
   */
  private enrichOne(raw: RawEvent): EnrichResult | null {
    try {
      return this.deps.pipeline.enrich(raw);
    } catch (err) {
      this.counters['malformed']!++;
      this.deps.logger.error('skipping an event that cannot be enriched', { err, event_id: raw.event_id });
      return null;
    }
  }

  stats(): Record<string, number> {
    return { ...this.counters, ...this.deps.pipeline.counters() };
  }

  /**
   * A repeated (project, event_id) is dropped here, except when it is this very message being
   * redelivered after a crash (same topic position): that one must go through again.
   */
  private async dropDuplicates(batch: DeliveredMessage[]): Promise<RawEvent[]> {
    const candidates = new Map<string, { raw: RawEvent; position: string }>();
    for (const m of batch) {
      const raw = parseRawEvent(m.value);
      if (!raw) {
        this.counters['malformed']!++;
        continue;
      }
      const key = `dedup:${raw.project_id}:${raw.event_id}`;
      if (candidates.has(key)) this.counters['duplicate']!++;
      else candidates.set(key, { raw, position: `${m.topic}/${m.partition}/${m.offset}` });
    }
    const entries = [...candidates];
    // Issued together so that ioredis pipelines them: one round trip for the whole batch.
    const claimed = await Promise.all(entries.map(([key, c]) => this.deps.kv.setIfAbsent(key, c.position, DEDUP_TTL_MS)));
    const holders = await Promise.all(entries.map(([key], i) => (claimed[i] ? null : this.deps.kv.get(key))));
    const out: RawEvent[] = [];
    entries.forEach(([, c], i) => {
      if (claimed[i] || holders[i] === c.position) out.push(c.raw);
      else this.counters['duplicate']!++;
    });
    return out;
  }
}

/** The bus carries what ingest wrote; anything else (a foreign producer, a bad byte) is skipped. */
function parseRawEvent(value: string): RawEvent | null {
  try {
    const raw = JSON.parse(value) as RawEvent;
    return typeof raw?.event_id === 'string' && typeof raw.project_id === 'string' && typeof raw.timestamp === 'number' ? raw : null;
  } catch {
    return null;
  }
}
