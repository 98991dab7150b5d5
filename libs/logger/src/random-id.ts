/** 128 random bits as 32 hex digits: a session id (crypto.randomUUID needs a secure context; this does not). */
export function randomId(): string {
  let s = '';
  for (const b of crypto.getRandomValues(new Uint8Array(16))) s += (b | 256).toString(16).slice(1);
  return s;
}

let seq = 0;

/**
 * An event id that sorts in creation order within a page: time and a counter in fixed-width
 * base 36, then randomness. The server orders a session's events by timestamp, then event_id,
 * so two events of the same millisecond (session_start and the first page view) keep their order.
 */
export const eventId = (now: number): string =>
  now.toString(36).padStart(9, '0') + (seq++ % 1_679_616).toString(36).padStart(4, '0') + randomId();
