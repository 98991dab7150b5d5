import { fileURLToPath } from 'node:url';
import { parseFlags, positiveInt, UsageError } from '../shared/bench-flags.js';
import type { SpoorMode } from '../ingest/spoor-deployment.js';

export { UsageError };

/** One offered load: `requestsPerSec` requests of `batch` events each; 0 requests is the idle row. */
export interface RowSpec {
  name: string;
  requestsPerSec: number;
  batch: number;
}

export interface CostOptions {
  modes: SpoorMode[];
  rows: RowSpec[];
  /** Seconds of the measured window. */
  durationSec: number;
  /** Seconds of load before the window, not counted (0: none). */
  warmupSec: number;
  /**
   * Seconds the idle row waits before its window: its start's tail (V8 compiling and collecting
   * what the start loaded, DuckDB after its migrations) is ~10 ms of CPU a second for the first
   * ~40 s, and would otherwise be all an idle row measures.
   */
  idleWarmupSec: number;
  /** Seconds of readability probes after the window, under the same load (0: none). */
  probeSec: number;
  connections: number;
  /** Distinct session ids the load's events spread over. */
  sessions: number;
  resultsDir: string;
}

const MODES: readonly SpoorMode[] = ['embedded', 'kafka'];

/** bench/results at the repository root (git-ignored), wherever the bench is started from. */
const DEFAULT_RESULTS_DIR = fileURLToPath(new URL('../../../bench/results/', import.meta.url));

const USAGE = `usage: npm run bench:cost -- [--modes embedded,kafka] [--rows idle,100,1000,5000,batch] [--duration 30] [--warmup 10] [--idle-warmup 60] [--probe 10] [--connections 20] [--sessions 1000] [--results-dir bench/results]
  Each flag may also come from the environment: BENCH_MODES, BENCH_ROWS, BENCH_DURATION, BENCH_WARMUP, BENCH_IDLE_WARMUP, BENCH_PROBE,
  BENCH_CONNECTIONS, BENCH_SESSIONS, BENCH_RESULTS_DIR.
  Rows: idle (no load), N (N single events/s to POST /v1/event), RxB (R requests/s of B-event batches to
  POST /v1/event/batch), batch (= 500x20). Each row runs in a fresh Spoor process with a fresh data directory
  (Kafka mode: fresh engines too): --warmup s of its load, not counted, then --duration s measured, then
  --probe s of readability probes (4 a second) under the same load. The idle row waits --idle-warmup s
  before its window instead: a process idles once its start's tail is over.`;

function nonNegativeInt(name: string, raw: string): number {
  if (!/^\d+$/.test(raw))
    throw new UsageError(`${name}: expected a whole number, got ${JSON.stringify(raw)}\n${USAGE}`);
  return Number(raw);
}

function listOf(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function rowOf(name: string): RowSpec {
  if (name === 'idle') return { name, requestsPerSec: 0, batch: 1 };
  if (name === 'batch') return { name, requestsPerSec: 500, batch: 20 };
  const single = /^(\d+)$/.exec(name);
  if (single) return { name, requestsPerSec: positiveInt('--rows', single[1]!, USAGE), batch: 1 };
  const batched = /^(\d+)x(\d+)$/.exec(name);
  if (batched) {
    const batch = positiveInt('--rows', batched[2]!, USAGE);
    if (batch > 500) throw new UsageError(`--rows: at most 500 events per batch (the API's limit)\n${USAGE}`);
    return { name, requestsPerSec: positiveInt('--rows', batched[1]!, USAGE), batch };
  }
  throw new UsageError(`--rows: unknown row ${JSON.stringify(name)}\n${USAGE}`);
}

function modesOf(raw: string): SpoorMode[] {
  const names = listOf(raw);
  const unknown = names.filter((n) => !(MODES as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0)
    throw new UsageError(`--modes: expected some of ${MODES.join(', ')}, got ${JSON.stringify(raw)}\n${USAGE}`);
  return MODES.filter((m) => names.includes(m));
}

/** Reads flags, falling back to BENCH_* variables, then to the defaults in USAGE. */
export function parseCostOptions(argv: string[], env: NodeJS.ProcessEnv): CostOptions {
  const flags = [
    'modes',
    'rows',
    'duration',
    'warmup',
    'idle-warmup',
    'probe',
    'connections',
    'sessions',
    'results-dir',
  ] as const;
  const values = parseFlags(argv, flags, USAGE);
  const pick = (flag: (typeof flags)[number], fallback: string) =>
    values[flag] ?? env[`BENCH_${flag.toUpperCase().replaceAll('-', '_')}`] ?? fallback;
  const rows = listOf(pick('rows', 'idle,100,1000,5000,batch')).map(rowOf);
  if (rows.length === 0) throw new UsageError(`--rows: no row named\n${USAGE}`);
  return {
    modes: modesOf(pick('modes', 'embedded,kafka')),
    rows,
    durationSec: positiveInt('--duration', pick('duration', '30'), USAGE),
    warmupSec: nonNegativeInt('--warmup', pick('warmup', '10')),
    idleWarmupSec: nonNegativeInt('--idle-warmup', pick('idle-warmup', '60')),
    probeSec: nonNegativeInt('--probe', pick('probe', '10')),
    connections: positiveInt('--connections', pick('connections', '20'), USAGE),
    sessions: positiveInt('--sessions', pick('sessions', '1000'), USAGE),
    resultsDir: pick('results-dir', DEFAULT_RESULTS_DIR),
  };
}

/** How a row reads in a table: `idle`, `100/s`, `500×20/s`. */
export function rowLabel(row: RowSpec): string {
  if (row.requestsPerSec === 0) return 'idle';
  return row.batch === 1 ? `${row.requestsPerSec}/s` : `${row.requestsPerSec}×${row.batch}/s`;
}
