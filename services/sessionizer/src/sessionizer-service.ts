import type { Bus, DeliveredMessage } from '@spoor/bus';
import type { Kv } from '@spoor/kv';
import { RulesCache } from '@spoor/rules';
import { openSessionKey, type EnrichedEvent, type SessionState, type SessionUpdate } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { applyEvent, emptySession } from './session-summary.js';

export interface SessionizerDeps {
  store: Store;
  kv: Kv;
  clock: () => number;
  /** Where each written summary is published for the classifier; absent: not published. */
  updates?: { bus: Bus; topic: string };
}

/** Open sessions stay in the KV this long after their last change; the store has the rest. */
const OPEN_SESSION_TTL_MS = 2 * 60 * 60 * 1000;

const stateKey = openSessionKey;

/**
 * Consumes enriched events and keeps session summaries and action last-seen times. Bots are
 * stored as events but kept out of sessions (DESIGN.md). The state carries the applied event
 * ids, and is written to the store before the offset commits, so a replay changes nothing.
 */
export class SessionizerService {
  private readonly counters = { events: 0, bots: 0, repeats: 0, malformed: 0, attributeSets: 0 };
  private readonly rules: RulesCache;

  constructor(private readonly deps: SessionizerDeps) {
    this.rules = new RulesCache(deps.store.rules, deps.kv, { clock: deps.clock });
  }

  async handle(batch: DeliveredMessage[]): Promise<void> {
    const events = batch.flatMap((m) => parseEnriched(m.value) ?? (this.counters.malformed++, []));
    const human = events.filter((e) => !e.bot);
    this.counters.bots += events.length - human.length;
    await this.touchActions(events);
    if (human.length === 0) return;
    const states = await this.loadStates(human);
    const rules = await this.rules.forProjects(human.map((e) => e.project_id));
    const now = this.deps.clock();
    const changed = new Set<SessionState>();
    for (const e of human.sort((a, b) => a.timestamp - b.timestamp)) {
      const key = stateKey(e.project_id, e.session_id);
      let state = states.get(key);
      if (!state) states.set(key, (state = emptySession(e)));
      if (applyEvent(state, e, now)) {
        this.counters.events++;
        // Attribute rules run on each new event (DESIGN.md, Rules); a repeat changes nothing.
        const compiled = rules.get(e.project_id);
        if (compiled && compiled.attribute > 0 && compiled.set.extract(e as unknown as Record<string, unknown>, state.attributes)) this.counters.attributeSets++;
      } else this.counters.repeats++;
      changed.add(state);
    }
    const list = [...changed];
    await this.deps.store.sessions.upsert(list);
    if (this.deps.updates) {
      const { bus, topic } = this.deps.updates;
      await bus.publish(topic, list.map((s) => ({ key: s.session_id, value: JSON.stringify(toUpdate(s)) })));
    }
    await this.deps.kv.mset(list.map((s) => ({ key: stateKey(s.project_id, s.session_id), value: JSON.stringify(s), ttlMs: OPEN_SESSION_TTL_MS })));
  }

  stats(): Record<string, number> {
    return { ...this.counters };
  }

  /** Open sessions from the KV; anything it has lost (restart, eviction) from the store. */
  private async loadStates(events: EnrichedEvent[]): Promise<Map<string, SessionState>> {
    const keys = [...new Set(events.map((e) => stateKey(e.project_id, e.session_id)))];
    const cached = await this.deps.kv.mget(keys);
    const states = new Map<string, SessionState>();
    const missing = new Map<string, string[]>();
    keys.forEach((key, i) => {
      if (cached[i]) return void states.set(key, JSON.parse(cached[i]!) as SessionState);
      const [, projectId, ...rest] = key.split(':');
      const ids = missing.get(projectId!) ?? [];
      ids.push(rest.join(':'));
      missing.set(projectId!, ids);
    });
    for (const [projectId, ids] of missing) {
      for (const s of await this.deps.store.sessions.getMany(projectId, ids)) states.set(stateKey(s.project_id, s.session_id), s);
    }
    return states;
  }

  private async touchActions(events: EnrichedEvent[]): Promise<void> {
    const latest = new Map<string, { project_id: string; action: string; last_seen: number }>();
    for (const e of events) {
      const key = `${e.project_id}\u0000${e.action}`;
      const seen = latest.get(key);
      if (!seen || seen.last_seen < e.timestamp) latest.set(key, { project_id: e.project_id, action: e.action, last_seen: e.timestamp });
    }
    await this.deps.store.events.touchActions([...latest.values()]);
  }
}

function toUpdate(s: SessionState): SessionUpdate {
  const { seen: _seen, ...summary } = s;
  return summary;
}

/** A message that is not an enriched event would block its partition: it is counted and skipped. */
function parseEnriched(value: string): EnrichedEvent | null {
  try {
    const e = JSON.parse(value) as EnrichedEvent;
    return typeof e?.session_id === 'string' && typeof e.project_id === 'string' && typeof e.timestamp === 'number' ? e : null;
  } catch {
    return null;
  }
}
