import { parseFlags, positiveInt, UsageError } from '../shared/bench-flags.js';

export interface ScaleOptions {
  /** Events pre-filled into the raw topic before each round. */
  events: number;
  sessions: number;
  perSession: number;
  /** Copies of each consumer, one round per entry (1 then 2 by default). */
  copies: number[];
}

const USAGE = `usage: npm run bench:scale -- [--events 50000] [--sessions 1000] [--per-session 20] [--copies 1,2]
  Kafka, ClickHouse and Redis (the testkit's local engines). Per round: a fresh topic prefix and
  database, events.raw pre-filled with --events events, then N copies of each consumer (enricher,
  sessionizer, classifier) started as separate processes and timed until every stage drained.`;

export { UsageError };

export function parseScaleOptions(argv: string[], env: NodeJS.ProcessEnv): ScaleOptions {
  const values = parseFlags(argv, ['events', 'sessions', 'per-session', 'copies'], USAGE);
  const int = (name: string, raw: string) => positiveInt(name, raw, USAGE);
  const copies = (values.copies ?? env['BENCH_COPIES'] ?? '1,2').split(',').map((c) => int('--copies', c.trim()));
  return {
    events: int('--events', values.events ?? env['BENCH_EVENTS'] ?? '50000'),
    sessions: int('--sessions', values.sessions ?? '1000'),
    perSession: int('--per-session', values['per-session'] ?? '20'),
    copies,
  };
}
