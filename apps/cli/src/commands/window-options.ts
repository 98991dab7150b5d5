import type { Command } from 'commander';
import { parseTimeArgument } from '../time-argument.js';

export interface WindowOptions {
  since?: number;
  until?: number;
}

/** --since and --until: a time window (window_start inclusive, window_end exclusive). */
export function withWindow(command: Command): Command {
  return command
    .option('--since <time>', 'window start: ms, ISO date/time, or a duration ago (24h, 7d)', (v) =>
      parseTimeArgument(v),
    )
    .option('--until <time>', 'window end (exclusive), same forms', (v) => parseTimeArgument(v));
}

/** The query fields of a window; unset ends left out. */
export function windowQuery(o: WindowOptions): { window_start?: number; window_end?: number } {
  return {
    ...(o.since !== undefined ? { window_start: o.since } : {}),
    ...(o.until !== undefined ? { window_end: o.until } : {}),
  };
}
