import { parseArgs } from 'node:util';

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

export class UsageError extends Error {}

function positiveInt(name: string, raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new UsageError(`${name}: expected a positive integer, got ${JSON.stringify(raw)}\n${USAGE}`);
  return Number(raw);
}

export function parseScaleOptions(argv: string[], env: NodeJS.ProcessEnv): ScaleOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        events: { type: 'string' },
        sessions: { type: 'string' },
        'per-session': { type: 'string' },
        copies: { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const copies = (values.copies ?? env['BENCH_COPIES'] ?? '1,2')
    .split(',')
    .map((c) => positiveInt('--copies', c.trim()));
  return {
    events: positiveInt('--events', values.events ?? env['BENCH_EVENTS'] ?? '50000'),
    sessions: positiveInt('--sessions', values.sessions ?? '1000'),
    perSession: positiveInt('--per-session', values['per-session'] ?? '20'),
    copies,
  };
}
