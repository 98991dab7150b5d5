import { UsageError } from './cli-errors.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** A length of time: `90s`, `15m`, `1h`, `7d`, `2w`, or plain milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+)(ms|s|m|h|d|w)?$/.exec(text.trim());
  if (!m) throw new UsageError(`not a duration: ${JSON.stringify(text)} (use 90s, 15m, 1h, 7d, 2w or milliseconds)`);
  return Number(m[1]) * UNITS[m[2] ?? 'ms']!;
}
