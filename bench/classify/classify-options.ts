import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The deployments the classify benchmark knows, in the order it runs them. */
export const CLASSIFY_MODES = ['embedded', 'kafka'] as const;
export type ClassifyMode = (typeof CLASSIFY_MODES)[number];

export interface ClassifyBenchOptions {
  modes: ClassifyMode[];
  /** Sessions in the backfilled project. */
  sessions: number;
  /** Fresh sessions classified per round of the throughput figure. */
  classifySessions: number;
  /** Rounds of the throughput figure (pure evaluation, then end to end); medians are reported. */
  rounds: number;
  /** Sessions per classify() call, as the classifier service's consumer batches them. */
  batch: number;
  /** Where the JSON result goes. */
  resultsDir: string;
}

/** bench/results at the repository root (git-ignored), wherever the bench is started from. */
const DEFAULT_RESULTS_DIR = fileURLToPath(new URL('../../../bench/results/', import.meta.url));

const USAGE = `usage: npm run bench:classify -- [--modes embedded,kafka] [--sessions 100000] [--classify-sessions 20000] [--rounds 3] [--batch 500] [--results-dir bench/results]
  Each flag may also come from the environment: BENCH_MODES, BENCH_SESSIONS, BENCH_CLASSIFY_SESSIONS, BENCH_ROUNDS, BENCH_BATCH.
  A quick run: --sessions 10000 --classify-sessions 5000 --rounds 1.`;

/** A bad flag or BENCH_* value: run.ts prints the message and the usage, without a stack. */
export class UsageError extends Error {}

function positiveInt(name: string, raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1)
    throw new UsageError(`${name}: expected a positive integer, got ${JSON.stringify(raw)}\n${USAGE}`);
  return n;
}

function modesOf(raw: string | undefined): ClassifyMode[] {
  if (raw === undefined || raw.trim() === '' || raw === 'all') return [...CLASSIFY_MODES];
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(CLASSIFY_MODES as readonly string[]).includes(n));
  if (unknown.length > 0)
    throw new UsageError(
      `--modes: unknown mode(s) ${unknown.join(', ')}; expected ${CLASSIFY_MODES.join(', ')}\n${USAGE}`,
    );
  return CLASSIFY_MODES.filter((m) => names.includes(m));
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        modes: { type: 'string' },
        sessions: { type: 'string' },
        'classify-sessions': { type: 'string' },
        rounds: { type: 'string' },
        batch: { type: 'string' },
        'results-dir': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    }).values;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
}

/** Reads flags, falling back to BENCH_* variables, then to the defaults in USAGE. Null after --help. */
export function parseClassifyOptions(argv: string[], env: NodeJS.ProcessEnv): ClassifyBenchOptions | null {
  const values = parse(argv);
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return null;
  }
  return {
    modes: modesOf(values.modes ?? env['BENCH_MODES']),
    sessions: positiveInt('--sessions', values.sessions ?? env['BENCH_SESSIONS'] ?? '100000'),
    classifySessions: positiveInt(
      '--classify-sessions',
      values['classify-sessions'] ?? env['BENCH_CLASSIFY_SESSIONS'] ?? '20000',
    ),
    rounds: positiveInt('--rounds', values.rounds ?? env['BENCH_ROUNDS'] ?? '3'),
    batch: positiveInt('--batch', values.batch ?? env['BENCH_BATCH'] ?? '500'),
    resultsDir: values['results-dir'] ?? DEFAULT_RESULTS_DIR,
  };
}
