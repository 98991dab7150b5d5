// The raw topic as ingest leaves it: what benchEvent() sends, stamped as ingest stamps it
// (services/ingest event-intake.ts), keyed by session, published in chunks.
import type { Bus } from '@spoor/bus';
import { randomUUID } from 'node:crypto';
import type { RawEvent } from '@spoor/schemas';
import { benchEvent } from '../ingest/bench-event.js';

const USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

export function rawBenchEvent(
  projectId: string,
  index: number,
  sessions: number,
  perSession: number,
  now: number,
): RawEvent {
  const session = Math.floor(index / perSession) % sessions;
  const e = benchEvent(session, now);
  return {
    event_id: randomUUID(),
    project_id: projectId,
    project: e['project'] as string,
    origin: e['origin'] as string,
    action: e['action'] as string,
    timestamp: now + index,
    client_timestamp: now + index,
    sent_at: null,
    received_at: now + index,
    payload: e['payload'] as Record<string, unknown>,
    session_id: e['session_id'] as string,
    url: e['url'] as string,
    referrer: e['referrer'] as string,
    ip: `198.51.100.${session % 250}`,
    user_agent: USER_AGENT,
  };
}

/** Publishes `events` raw events to `topic`; resolves when all are acknowledged. */
export async function prefillRaw(
  bus: Bus,
  topic: string,
  projectId: string,
  o: { events: number; sessions: number; perSession: number },
  log: (line: string) => void,
): Promise<void> {
  const now = Date.now() - 60_000;
  const started = Date.now();
  for (let i = 0; i < o.events; i += 5000) {
    const messages = [];
    for (let j = i; j < Math.min(o.events, i + 5000); j++) {
      const e = rawBenchEvent(projectId, j, o.sessions, o.perSession, now);
      messages.push({ key: `${e.project_id}:s:${e.session_id}`, value: JSON.stringify(e) });
    }
    await bus.publish(topic, messages);
    if ((i / 5000) % 40 === 39)
      log(`  pre-filled ${(i + 5000).toLocaleString('en')} events (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
}
