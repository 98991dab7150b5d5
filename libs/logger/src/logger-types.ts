/** The switches of `spoor.init` (spec: the logger's options with session, clicks and navigation). */
export interface SpoorOptions {
  /** Keep a session id in sessionStorage, rotated after 30 minutes without activity; send `session_start` once per session. Default true. */
  session?: boolean;
  /** Capture clicks with a description of the element (never input values). Default true. */
  clicks?: boolean;
  /** Send a `pageview` for the first page and every single-page-app navigation. Default true. */
  navigation?: boolean;
  /** Send each page's maximum scroll depth as a `scroll` event when the page is left. Default true. */
  scrolls?: boolean;
  /** Send nothing when the browser asks not to be tracked (Do Not Track, Global Privacy Control). Default false. */
  respectDnt?: boolean;
  /** How long events wait to be sent together, ms. Default 1000. */
  flushMs?: number;
}

export interface SpoorConfig {
  /** Address of POST /v1/event; batches go to the same address + `/batch`. */
  endpoint: string;
  /** The project identifier, e.g. `acme/web`. */
  project: string;
  options?: SpoorOptions;
}

/** One event as POST /v1/event/batch takes it (DESIGN.md, Ingestion). */
export interface QueuedEvent {
  project: string;
  action: string;
  timestamp: number;
  payload: Record<string, unknown>;
  event_id: string;
  url: string;
  referrer?: string;
  session_id?: string;
  sent_at?: number;
}
