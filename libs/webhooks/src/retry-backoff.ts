/**
 * Retries of a failed delivery: waits grow fourfold from `baseMs` (5 s, 20 s, 80 s, 5 min,
 * 21 min, 85 min, 5.7 h, then 12 h), each with equal jitter (half fixed, half random) so that
 * endpoints recovering together are not hit at once; ten attempts span about a day and a half,
 * like the Standard Webhooks reference schedule. A Retry-After answer is honoured (up to a day).
 */
export const WEBHOOK_RETRY = {
  maxAttempts: 10,
  baseMs: 5_000,
  factor: 4,
  capMs: 12 * 3_600_000,
  maxRetryAfterMs: 24 * 3_600_000,
} as const;

/** An endpoint whose every delivery failed this long is disabled (and its owner told). */
export const DISABLE_AFTER_MS = 5 * 24 * 3_600_000;

/** The wait before attempt `attempt + 1` after `attempt` failed ones, or null when they are exhausted. */
export function nextRetryDelay(
  attempt: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
  baseMs: number = WEBHOOK_RETRY.baseMs,
): number | null {
  if (attempt >= WEBHOOK_RETRY.maxAttempts) return null;
  const backoff = Math.min(WEBHOOK_RETRY.capMs, baseMs * WEBHOOK_RETRY.factor ** Math.max(0, attempt - 1));
  const jittered = Math.round(backoff / 2 + random() * (backoff / 2));
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, WEBHOOK_RETRY.maxRetryAfterMs));
}
