import { batchTransport, type BatchTransport } from './batch-transport.js';
import { read, write } from './browser-storage.js';
import type { QueuedEvent, SpoorConfig } from './logger-types.js';
import { captureClicks, captureNavigation, scrollDepth } from './page-capture.js';
import { eventId } from './random-id.js';
import { touchSession } from './session-store.js';

const OPT_OUT = 'spoor_optout';

let project = '';
let sessions = true;
let transport: BatchTransport | null = null;

/** The visitor opted out on this site (`spoor.optOut()`), kept in localStorage. */
export const optedOut = (): boolean => read<number>('localStorage', OPT_OUT) === 1;

/** Do Not Track or Global Privacy Control is on. */
const doNotTrack = () =>
  navigator.doNotTrack === '1' || (navigator as { globalPrivacyControl?: boolean }).globalPrivacyControl === true;

/** Sends a custom event: `spoor.track('signup', { plan: 'team' })`. Does nothing before init or after an opt-out. */
export function track(action: string, payload: Record<string, unknown> = {}, referrer?: string): void {
  if (!transport || optedOut()) return;
  const timestamp = Date.now();
  const event = (name: string, data: Record<string, unknown>): QueuedEvent => ({
    project,
    action: name,
    timestamp,
    payload: data,
    event_id: eventId(timestamp),
    url: location.href,
  });
  const s = sessions ? touchSession(timestamp) : null;
  // session_start first: it gets the smaller event_id, which orders events of the same millisecond.
  if (s?.fresh)
    transport.add({ ...event('session_start', {}), session_id: s.id, referrer: document.referrer || undefined });
  const e = event(action, payload);
  if (referrer) e.referrer = referrer;
  if (s) e.session_id = s.id;
  transport.add(e);
}

/**
 * Starts the logger once per page (spec: endpoint, project, options with session, clicks,
 * navigation). Every switch defaults to on but `respectDnt`.
 */
export function init(config: SpoorConfig): void {
  if (transport) return;
  const o = {
    session: true,
    clicks: true,
    navigation: true,
    scrolls: true,
    respectDnt: false,
    flushMs: 1000,
    ...config.options,
  };
  if (optedOut() || (o.respectDnt && doNotTrack())) return;
  project = config.project;
  sessions = o.session;
  transport = batchTransport(`${config.endpoint.replace(/\/+$/, '')}/batch`, o.flushMs);
  const scroll = o.scrolls ? scrollDepth(track) : null;
  if (o.clicks) captureClicks(track);
  if (o.navigation) captureNavigation(track, () => scroll?.newPage());
  const leave = () => {
    scroll?.report();
    transport?.leave();
  };
  addEventListener('pagehide', leave);
  document.addEventListener('visibilitychange', () => document.visibilityState === 'hidden' && leave());
}

/** Sends what is waiting now rather than after the batching delay. */
export const flush = (): Promise<void> => transport?.flush() ?? Promise.resolve();

/** Stops sending from this browser on this site, from now on and on later visits. */
export function optOut(): void {
  write('localStorage', OPT_OUT, 1);
  transport?.clear();
}

/** Takes an opt-out back; the logger starts again on the next page load. */
export function optIn(): void {
  write('localStorage', OPT_OUT, null);
}
