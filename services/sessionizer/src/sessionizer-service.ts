import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { DeliveredMessage } from '@spoor/bus';
import type { Kv } from '@spoor/kv';
import { rawFieldsReadableFrom, RulesCache } from '@spoor/rules';
import {
  kvTtlMs,
  openSessionKey,
  parseRawPosition,
  RAW_POSITION_HEADER,
  type DropCounts,
  type EnrichedEvent,
  type SessionInput,
  type SessionState,
  type SessionUpdate,
} from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { appliedBefore, applyEvent, emptySession, markOf, setMark, type AppliedMark } from './session-summary.js';

/**
 * Where written summaries go for the classifier: `sessions.updated`, or the classifier of this
 * process (SPOOR_HANDOFF=local). Absent: nowhere.
 */
export type SessionUpdatesOutput = (updates: SessionUpdate[]) => Promise<void>;

export interface SessionizerDeps {
  store: Store;
  kv: Kv;
  clock: () => number;
  updates?: SessionUpdatesOutput;
}

/** Open sessions stay in the KV this long after their last change; the store has the rest. */
const OPEN_SESSION_TTL_MS = kvTtlMs.openSession;

const stateKey = openSessionKey;

/** States kept beside the text last written for them (see `written`); the map starts over past this. */
const WRITTEN_STATES_KEPT = 50_000;

/**
 * Consumes enriched events (from `events.enriched`, or handed over by the enricher of this
 * process) and keeps session summaries and action last-seen times. Bots are stored as events but
 * kept out of sessions (DESIGN.md). The state carries the position it applied through and the
 * latest event ids, and is written to the store before the offset commits, so a replay changes
 * nothing. Batches are applied one at a time, whichever door they came in by.
 */
export class SessionizerService {
  private readonly counters = { events: 0, bots: 0, repeats: 0, malformed: 0, attributeSets: 0 };
  private readonly rules: RulesCache;
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * The states this sessionizer last wrote to the KV, with the exact text it wrote. When the KV
   * still holds that text, the object is used as it is instead of parsing the text again (issue
   * 14: a parse of a few KB per session per batch); any other writer (a backfill, a deletion,
   * another sessionizer after a rebalance) changes or removes the text, and then the KV's wins.
   * Cleared whenever a batch fails, since its states may have been changed in place.
   */
  private written = new Map<string, { json: string; state: SessionState }>();

  constructor(private readonly deps: SessionizerDeps) {
    // Attribute rules reading raw fields wait for the domain's verification (issue 42).
    this.rules = new RulesCache(deps.store.rules, deps.kv, {
      clock: deps.clock,
      rawFieldsReadable: rawFieldsReadableFrom(deps.store.projects),
    });
  }

  /** A batch from the bus. */
  handle(batch: DeliveredMessage[]): Promise<void> {
    const inputs: SessionInput[] = [];
    for (const m of batch) {
      const event = parseEnriched(m.value);
      if (!event) {
        this.counters.malformed++;
        continue;
      }
      // The raw position the enricher read it from when it says so (see RAW_POSITION_HEADER), else this message's own.
      const raw = parseRawPosition(m.headers?.[RAW_POSITION_HEADER]);
      inputs.push(
        raw
          ? { event, source: raw.source, offset: raw.offset }
          : { event, source: `${m.topic}/${m.partition}`, offset: Number(m.offset) },
      );
    }
    return this.apply(inputs);
  }

  /** Events with the positions they were read from; resolves once their sessions are stored. */
  apply(inputs: SessionInput[]): Promise<void> {
    const run = this.queue.then(() => this.applyNow(inputs));
    this.queue = run.catch(() => undefined);
    return run;
  }

  stats(): Record<string, number> {
    return { ...this.counters };
  }

  drops(): DropCounts {
    return { bot: this.counters.bots, repeat: this.counters.repeats, malformed: this.counters.malformed };
  }

  private async applyNow(inputs: SessionInput[]): Promise<void> {
    try {
      await this.applyBatch(inputs);
    } catch (err) {
      this.written.clear();
      throw err;
    }
  }

  private async applyBatch(inputs: SessionInput[]): Promise<void> {
    const human = inputs.filter((i) => !i.event.bot);
    this.counters.bots += inputs.length - human.length;
    await this.touchActions(inputs);
    if (human.length === 0) return;
    const states = await this.loadStates(human.map((i) => i.event));
    const rules = await this.rules.forProjects(human.map((i) => i.event.project_id));
    const now = this.deps.clock();
    // The marks as stored: a position at or below one was applied by an earlier batch. Marks
    // move once the whole batch is applied (events are applied in timestamp order, not position).
    const before = new Map<SessionState, AppliedMark | null>();
    const after = new Map<SessionState, AppliedMark>();
    // Ties by event id, as everywhere (docs/analytics.md, Determinism): attribute rules see the
    // batch's events in one order whatever order they came in.
    human.sort((a, b) => a.event.timestamp - b.event.timestamp || compareIds(a.event.event_id, b.event.event_id));
    // An event twice in one batch (an enricher's replay published behind its first output) is a
    // repeat however many of its session's events lie between the two copies.
    const inBatch = new Set<string>();
    for (const [i, { event: e, source, offset }] of human.entries()) {
      // In the one-process mode ingest answers on this thread too: let it in between chunks.
      if (i > 0 && i % 256 === 0) await yieldToLoop();
      const key = stateKey(e.project_id, e.session_id);
      let state = states.get(key);
      if (!state) states.set(key, (state = emptySession(e)));
      if (!before.has(state)) before.set(state, markOf(state));
      const id = `${e.project_id}\u0000${e.event_id}`;
      if (appliedBefore(before.get(state)!, source, offset) || inBatch.has(id)) {
        this.counters.repeats++;
        continue;
      }
      inBatch.add(id);
      const mark = after.get(state);
      if (!mark || mark.source !== source || mark.offset < offset) after.set(state, { source, offset });
      if (applyEvent(state, e, now)) {
        this.counters.events++;
        // Attribute rules run on each new event (DESIGN.md, Rules); a repeat changes nothing.
        const compiled = rules.get(e.project_id);
        if (
          compiled &&
          compiled.attribute > 0 &&
          compiled.set.extract(e as unknown as Record<string, unknown>, state.attributes)
        )
          this.counters.attributeSets++;
      } else this.counters.repeats++;
    }
    for (const [state, mark] of after) setMark(state, mark);
    const list = [...after.keys()];
    if (list.length === 0) return;
    await this.deps.store.sessions.upsert(list);
    await this.deps.updates?.(list.map(toUpdate));
    const entries = list.map((s) => ({
      key: stateKey(s.project_id, s.session_id),
      value: JSON.stringify(s),
      ttlMs: OPEN_SESSION_TTL_MS,
    }));
    await this.deps.kv.mset(entries);
    if (this.written.size + entries.length > WRITTEN_STATES_KEPT) this.written = new Map();
    entries.forEach((entry, i) => this.written.set(entry.key, { json: entry.value, state: list[i]! }));
  }

  /** Open sessions from the KV; anything it has lost (restart, eviction) from the store. */
  private async loadStates(events: EnrichedEvent[]): Promise<Map<string, SessionState>> {
    const keys = [...new Set(events.map((e) => stateKey(e.project_id, e.session_id)))];
    const cached = await this.deps.kv.mget(keys);
    const states = new Map<string, SessionState>();
    const missing = new Map<string, string[]>();
    keys.forEach((key, i) => {
      const text = cached[i];
      if (text) {
        const mine = this.written.get(key);
        return void states.set(key, mine?.json === text ? mine.state : (JSON.parse(text) as SessionState));
      }
      const [, projectId, ...rest] = key.split(':');
      const ids = missing.get(projectId!) ?? [];
      ids.push(rest.join(':'));
      missing.set(projectId!, ids);
    });
    for (const [projectId, ids] of missing) {
      for (const s of await this.deps.store.sessions.getMany(projectId, ids))
        states.set(stateKey(s.project_id, s.session_id), s);
    }
    return states;
  }

  private async touchActions(inputs: SessionInput[]): Promise<void> {
    const latest = new Map<string, { project_id: string; action: string; last_seen: number }>();
    for (const { event: e } of inputs) {
      const key = `${e.project_id}\u0000${e.action}`;
      const seen = latest.get(key);
      if (!seen || seen.last_seen < e.timestamp)
        latest.set(key, { project_id: e.project_id, action: e.action, last_seen: e.timestamp });
    }
    await this.deps.store.events.touchActions([...latest.values()]);
  }
}

const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function toUpdate(s: SessionState): SessionUpdate {
  const { seen: _seen, ...summary } = s;
  return summary;
}

/** A message that is not an enriched event would block its partition: it is counted and skipped. */
function parseEnriched(value: string): EnrichedEvent | null {
  try {
    const e = JSON.parse(value) as EnrichedEvent;
    return typeof e?.session_id === 'string' && typeof e.project_id === 'string' && typeof e.timestamp === 'number'
      ? e
      : null;
  } catch {
    return null;
  }
}
