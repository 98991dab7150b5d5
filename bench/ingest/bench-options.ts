import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The targets the ingest benchmark knows, in the order it runs them. */
export const TARGETS = ['baseline', 'ingest', 'embedded', 'kafka', 'kafka-split'] as const;
export type TargetName = (typeof TARGETS)[number];

export interface BenchOptions {
  /** Seconds of load per target; no warm-up phase, the whole run counts. */
  durationSec: number;
  connections: number;
  /** How many distinct session_ids the events spread over (one session per key keeps order). */
  sessions: number;
  /** Events per request: 1 posts to /v1/event, more to /v1/event/batch (the logger sends 20). */
  batch: number;
  targets: TargetName[];
  /**
   * Events per second offered to Spoor's targets (the baseline always runs flat out), or null
   * for as many as they answer. A rate the pipeline keeps up with shows whether memory stays flat
   * over a long run apart from a growing backlog (issue 14, target 5).
   */
  rate: number | null;
  /** Where the JSON result goes. */
  resultsDir: string;
}

/** bench/results at the repository root (git-ignored), wherever the bench is started from. */
const DEFAULT_RESULTS_DIR = fileURLToPath(new URL('../../../bench/results/', import.meta.url));

const USAGE = `usage: npm run bench -- [--duration 10] [--connections 50|10] [--sessions 1000] [--batch 1] [--rate EVENTS_PER_S] [--only ingest,embedded,kafka,kafka-split] [--results-dir bench/results]
  Each flag may also come from the environment: BENCH_DURATION, BENCH_CONNECTIONS, BENCH_SESSIONS, BENCH_BATCH, BENCH_RATE, BENCH_ONLY.
  --rate offers Spoor's targets at most this many events per second in all (default: as many as they answer).
  --batch 20 posts 20 events of one session per /v1/event/batch request (connections default to 10 then, else 50).
  Targets: ingest (the all-in-one process with SPOOR_SERVICES=ingest: the front door alone), embedded, kafka,
  kafka-split (Kafka mode, ingest in one process and the consumers in another).
  The bare node:http baseline always runs (the ratios need it) unless --only names baseline alone.`;

/** A bad flag or BENCH_* value: run.ts prints the message and the usage, without a stack. */
export class UsageError extends Error {}

function positiveInt(name: string, raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1)
    throw new UsageError(`${name}: expected a positive integer, got ${JSON.stringify(raw)}\n${USAGE}`);
  return n;
}

function targetsOf(raw: string | undefined): TargetName[] {
  if (raw === undefined || raw.trim() === '' || raw === 'all') return [...TARGETS];
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(TARGETS as readonly string[]).includes(n));
  if (unknown.length > 0)
    throw new UsageError(`--only: unknown target(s) ${unknown.join(', ')}; expected ${TARGETS.join(', ')}\n${USAGE}`);
  // The baseline is what every ratio divides by, so it runs whenever a Spoor mode does.
  return TARGETS.filter((t) => t === 'baseline' || names.includes(t));
}

/** Reads flags, falling back to BENCH_* variables, then to the defaults in USAGE. */
export function parseBenchOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        duration: { type: 'string' },
        connections: { type: 'string' },
        sessions: { type: 'string' },
        batch: { type: 'string' },
        rate: { type: 'string' },
        only: { type: 'string' },
        'results-dir': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const batch = positiveInt('--batch', values.batch ?? env['BENCH_BATCH'] ?? '1');
  if (batch > 500) throw new UsageError(`--batch: at most 500 events per request (the API's limit)\n${USAGE}`);
  const rate = values.rate ?? env['BENCH_RATE'];
  return {
    durationSec: positiveInt('--duration', values.duration ?? env['BENCH_DURATION'] ?? '10'),
    connections: positiveInt(
      '--connections',
      values.connections ?? env['BENCH_CONNECTIONS'] ?? (batch > 1 ? '10' : '50'),
    ),
    batch,
    sessions: positiveInt('--sessions', values.sessions ?? env['BENCH_SESSIONS'] ?? '1000'),
    targets: targetsOf(values.only ?? env['BENCH_ONLY']),
    rate: rate === undefined ? null : positiveInt('--rate', rate),
    resultsDir: values['results-dir'] ?? DEFAULT_RESULTS_DIR,
  };
}
