import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The deployments the read benchmark knows, in the order it runs them. */
export const READ_MODES = ['embedded', 'kafka'] as const;
export type ReadMode = (typeof READ_MODES)[number];

export interface ReadBenchOptions {
  /** Events loaded into the store before the server starts (raw and enriched each). */
  events: number;
  /** Sessions the events spread over; events / sessions per session (the remainder goes to the first ones). */
  sessions: number;
  /** Seconds of load per endpoint; no warm-up phase, the whole run counts. */
  durationSec: number;
  connections: number;
  modes: ReadMode[];
  /** Where the JSON result goes. */
  resultsDir: string;
  /**
   * Embedded only: a data directory kept after the run. When it already holds a dataset of the
   * same size loaded by an earlier run (bench-read-dataset.json), the load is skipped.
   */
  dataDir: string | null;
}

/** bench/results at the repository root (git-ignored), wherever the bench is started from. */
const DEFAULT_RESULTS_DIR = fileURLToPath(new URL('../../../bench/results/', import.meta.url));

const USAGE = `usage: npm run bench:read -- [--events 1000000] [--sessions 50000] [--duration 10] [--connections 10] [--only embedded[,kafka]] [--results-dir bench/results] [--data-dir DIR]
  Each flag may also come from the environment: BENCH_EVENTS, BENCH_SESSIONS, BENCH_DURATION, BENCH_CONNECTIONS, BENCH_ONLY, BENCH_DATA_DIR.
  --data-dir (embedded only) keeps the loaded store in DIR and reuses it on the next run of the same size (no 100 s load).
  A quick run: --events 100000 --sessions 5000. GET /healthz of the same process is the baseline of every mode.`;

/** A bad flag or BENCH_* value: run.ts prints the message and the usage, without a stack. */
export class UsageError extends Error {}

function positiveInt(name: string, raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1)
    throw new UsageError(`${name}: expected a positive integer, got ${JSON.stringify(raw)}\n${USAGE}`);
  return n;
}

function modesOf(raw: string | undefined): ReadMode[] {
  if (raw === undefined || raw.trim() === '' || raw === 'all') return [...READ_MODES];
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(READ_MODES as readonly string[]).includes(n));
  if (unknown.length > 0)
    throw new UsageError(`--only: unknown mode(s) ${unknown.join(', ')}; expected ${READ_MODES.join(', ')}\n${USAGE}`);
  return READ_MODES.filter((m) => names.includes(m));
}

/** Reads flags, falling back to BENCH_* variables, then to the defaults in USAGE. */
export function parseReadOptions(argv: string[], env: NodeJS.ProcessEnv): ReadBenchOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        events: { type: 'string' },
        sessions: { type: 'string' },
        duration: { type: 'string' },
        connections: { type: 'string' },
        only: { type: 'string' },
        'results-dir': { type: 'string' },
        'data-dir': { type: 'string' },
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
  const options: ReadBenchOptions = {
    events: positiveInt('--events', values.events ?? env['BENCH_EVENTS'] ?? '1000000'),
    sessions: positiveInt('--sessions', values.sessions ?? env['BENCH_SESSIONS'] ?? '50000'),
    durationSec: positiveInt('--duration', values.duration ?? env['BENCH_DURATION'] ?? '10'),
    connections: positiveInt('--connections', values.connections ?? env['BENCH_CONNECTIONS'] ?? '10'),
    modes: modesOf(values.only ?? env['BENCH_ONLY']),
    resultsDir: values['results-dir'] ?? DEFAULT_RESULTS_DIR,
    dataDir: values['data-dir'] ?? env['BENCH_DATA_DIR'] ?? null,
  };
  if (options.dataDir !== null && options.modes.includes('kafka'))
    throw new UsageError(`--data-dir keeps an embedded store only; add --only embedded\n${USAGE}`);
  if (options.events < options.sessions)
    throw new UsageError(`--events (${options.events}) must be at least --sessions (${options.sessions})\n${USAGE}`);
  return options;
}
