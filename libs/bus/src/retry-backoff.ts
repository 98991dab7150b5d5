/** Exponential backoff with full jitter, capped: 100 ms, 200 ms, … up to `capMs`. */
export function backoffDelay(attempt: number, baseMs = 100, capMs = 5000): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 16));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
