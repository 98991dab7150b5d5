import { read, write } from './browser-storage.js';
import { randomId } from './random-id.js';

const KEY = 'spoor_session';
/** A session ends after 30 minutes without an event (DESIGN.md, Ingestion: the same cut as the server's). */
export const IDLE_MS = 30 * 60_000;

interface Stored {
  id: string;
  /** The last event's time. */
  at: number;
}

let memory: Stored | null = null;

/**
 * The tab's session id, kept in sessionStorage so a reload or another page of the site in the
 * same tab continues it; a new one after 30 idle minutes. `fresh` is true once per session.
 */
export function touchSession(now: number): { id: string; fresh: boolean } {
  const stored = read<Stored>('sessionStorage', KEY) || memory;
  const fresh = !stored || now - stored.at > IDLE_MS;
  memory = { id: fresh ? randomId() : stored.id, at: now };
  write('sessionStorage', KEY, memory);
  return { id: memory.id, fresh };
}
