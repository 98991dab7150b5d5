import { UsageError } from './cli-errors.js';
import { parseDuration } from './duration-argument.js';

/**
 * A time on the command line: ms since the epoch (`1732262400000`), an ISO 8601 date or time
 * (`2026-11-21`, `2026-11-21T09:00`, local unless it names a zone), or a duration before now
 * (`30m`, `24h`, `7d`).
 */
export function parseTimeArgument(text: string, now = Date.now()): number {
  const t = text.trim();
  if (/^\d{10,}$/.test(t)) return Number(t);
  if (/^\d+[smhdw]$/.test(t)) return now - parseDuration(t);
  // A bare date is midnight local time, as a person means it (Date.parse would take UTC).
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  const ms = date ? new Date(Number(date[1]), Number(date[2]) - 1, Number(date[3])).getTime() : Date.parse(t);
  if (!Number.isFinite(ms) || !/^\d{4}-\d{2}-\d{2}/.test(t))
    throw new UsageError(
      `not a time: ${JSON.stringify(text)} (use ms since the epoch, an ISO date such as 2026-11-21 or 2026-11-21T09:00, or a duration ago such as 24h or 7d)`,
    );
  return ms;
}
