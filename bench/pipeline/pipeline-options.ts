import { parseFlags, positiveInt, UsageError } from '../shared/bench-flags.js';
import type { BenchMode } from '../shared/mode-stores.js';

export interface PipelineOptions {
  /** Events pre-filled into the raw topic. */
  events: number;
  /** Distinct session ids; events come in runs of `perSession` per session, as the logger batches them. */
  sessions: number;
  perSession: number;
  modes: BenchMode[];
}

const USAGE = `usage: npm run bench:pipeline -- [--events 1000000] [--sessions 1000] [--per-session 20] [--only embedded,kafka]
  Pre-fills events.raw with --events events, then times each stage draining its input alone (enricher,
  sessionizer, classifier) beside the stage's floor in the same run. Flags also as BENCH_EVENTS, BENCH_ONLY.`;

export { UsageError };

export function parsePipelineOptions(argv: string[], env: NodeJS.ProcessEnv): PipelineOptions {
  const values = parseFlags(argv, ['events', 'sessions', 'per-session', 'only'], USAGE);
  const int = (name: string, raw: string) => positiveInt(name, raw, USAGE);
  const only = (values.only ?? env['BENCH_ONLY'] ?? 'embedded,kafka')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = only.filter((m) => m !== 'embedded' && m !== 'kafka');
  if (unknown.length) throw new UsageError(`--only: unknown mode(s) ${unknown.join(', ')}\n${USAGE}`);
  return {
    events: int('--events', values.events ?? env['BENCH_EVENTS'] ?? '1000000'),
    sessions: int('--sessions', values.sessions ?? '1000'),
    perSession: int('--per-session', values['per-session'] ?? '20'),
    modes: only as BenchMode[],
  };
}
