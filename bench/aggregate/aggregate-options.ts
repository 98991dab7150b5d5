import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The deployments the aggregate benchmark knows, in the order it runs them. */
export const AGGREGATE_MODES = ['embedded', 'kafka'] as const;
export type AggregateMode = (typeof AGGREGATE_MODES)[number];

export interface AggregateBenchOptions {
  modes: AggregateMode[];
  /** Project sizes in events, smallest first; each gets a fresh store of its own. */
  sizes: number[];
  /** Timed rounds of baseline, aggregation and transitions per size; medians are reported. */
  rounds: number;
  /** Events per insert call while loading (whole sessions, so a chunk may run a little over). */
  chunk: number;
  /** DuckDB's memory_limit in embedded mode: SPOOR_DUCKDB_MEMORY's default unless told. */
  duckdbMemory: string;
  /** Where the JSON result goes. */
  resultsDir: string;
}

/** bench/results at the repository root (git-ignored), wherever the bench is started from. */
const DEFAULT_RESULTS_DIR = fileURLToPath(new URL('../../../bench/results/', import.meta.url));

const USAGE = `usage: npm run bench:aggregate -- [--events 1000000,10000000] [--only embedded[,kafka]] [--rounds 3] [--chunk 50000] [--duckdb-memory 1GB] [--results-dir bench/results]
  Each flag may also come from the environment: BENCH_EVENTS, BENCH_ONLY, BENCH_ROUNDS, BENCH_CHUNK, BENCH_DUCKDB_MEMORY.
  A quick run: --events 100000 --rounds 1.`;

/** A bad flag or BENCH_* value: run.ts prints the message and the usage, without a stack. */
export class UsageError extends Error {}

function positiveInt(name: string, raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1)
    throw new UsageError(`${name}: expected a positive integer, got ${JSON.stringify(raw)}\n${USAGE}`);
  return n;
}

/** `1000000,10000000`; at least 10 events each so a project holds a session or more. */
function sizesOf(raw: string): number[] {
  const sizes = raw
    .split(',')
    .map((s) => s.trim().replace(/_/g, ''))
    .filter(Boolean)
    .map((s) => positiveInt('--events', s));
  if (sizes.length === 0) throw new UsageError(`--events: expected a comma-separated list of sizes\n${USAGE}`);
  const small = sizes.find((n) => n < 10);
  if (small !== undefined) throw new UsageError(`--events: ${small} is too small, 10 events at least\n${USAGE}`);
  return [...new Set(sizes)].sort((a, b) => a - b);
}

/** A DuckDB memory_limit such as 1GB or 512MiB (the form SPOOR_DUCKDB_MEMORY takes). */
function memoryOf(raw: string): string {
  if (!/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i.test(raw))
    throw new UsageError(`--duckdb-memory: expected a size such as 1GB, got ${JSON.stringify(raw)}\n${USAGE}`);
  return raw;
}

function modesOf(raw: string | undefined): AggregateMode[] {
  if (raw === undefined || raw.trim() === '' || raw === 'all') return [...AGGREGATE_MODES];
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(AGGREGATE_MODES as readonly string[]).includes(n));
  if (unknown.length > 0)
    throw new UsageError(
      `--only: unknown mode(s) ${unknown.join(', ')}; expected ${AGGREGATE_MODES.join(', ')}\n${USAGE}`,
    );
  return AGGREGATE_MODES.filter((m) => names.includes(m));
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        events: { type: 'string' },
        only: { type: 'string' },
        rounds: { type: 'string' },
        chunk: { type: 'string' },
        'duckdb-memory': { type: 'string' },
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
export function parseAggregateOptions(argv: string[], env: NodeJS.ProcessEnv): AggregateBenchOptions | null {
  const values = parse(argv);
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return null;
  }
  return {
    modes: modesOf(values.only ?? env['BENCH_ONLY']),
    sizes: sizesOf(values.events ?? env['BENCH_EVENTS'] ?? '1000000,10000000'),
    rounds: positiveInt('--rounds', values.rounds ?? env['BENCH_ROUNDS'] ?? '3'),
    chunk: positiveInt('--chunk', values.chunk ?? env['BENCH_CHUNK'] ?? '50000'),
    duckdbMemory: memoryOf(values['duckdb-memory'] ?? env['BENCH_DUCKDB_MEMORY'] ?? '1GB'),
    resultsDir: values['results-dir'] ?? DEFAULT_RESULTS_DIR,
  };
}
