import { parseArgs } from 'node:util';
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

export class UsageError extends Error {}

function positiveInt(name: string, raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new UsageError(`${name}: expected a positive integer, got ${JSON.stringify(raw)}\n${USAGE}`);
  return Number(raw);
}

export function parsePipelineOptions(argv: string[], env: NodeJS.ProcessEnv): PipelineOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        events: { type: 'string' },
        sessions: { type: 'string' },
        'per-session': { type: 'string' },
        only: { type: 'string' },
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
  const only = (values.only ?? env['BENCH_ONLY'] ?? 'embedded,kafka')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = only.filter((m) => m !== 'embedded' && m !== 'kafka');
  if (unknown.length) throw new UsageError(`--only: unknown mode(s) ${unknown.join(', ')}\n${USAGE}`);
  return {
    events: positiveInt('--events', values.events ?? env['BENCH_EVENTS'] ?? '1000000'),
    sessions: positiveInt('--sessions', values.sessions ?? '1000'),
    perSession: positiveInt('--per-session', values['per-session'] ?? '20'),
    modes: only as BenchMode[],
  };
}
