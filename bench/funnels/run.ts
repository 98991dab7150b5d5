// `npm run bench:funnels`: POST /v1/funnels/query's store read on 1 M events over 7 days
// (issue 18: a 4-step funnel answers in ≤ 500 ms embedded). Loads the aggregate benchmark's
// seeded data (bench/aggregate/event-generator.ts: sessions of page views, scrolls, clicks,
// add_to_cart, checkout…) into a fresh store of each mode, then times the funnel
// pageview → click → add_to_cart → checkout per session, strict order, a 1-day conversion
// window, over the 7 days, and variants (any order, per visitor, broken down by browser), each
// the median of ROUNDS runs after one warm-up. Absolute ms with the machine described
// (CONVENTIONS.md, Benchmarks): a funnel has no bare-server baseline; events.countEnriched, the
// store's cheapest full pass over the project, is timed beside it for scale. Beside the wall
// time, embedded, the process's CPU time over the same run (DuckDB's threads run in this
// process, so it is the query's; ClickHouse's CPU is elsewhere and not shown), which a shared,
// loaded machine disturbs less than the wall time.
//   node dist/bench/funnels/run.js [--events N] [--modes embedded,kafka] [--rounds N]
import { randomUUID } from 'node:crypto';
import { compileFunnelStep } from '@spoor/rules';
import type { FunnelSpec, Store } from '@spoor/store';
import { stopAllEngines } from '@spoor/testkit';
import { emptyTally, generateDataset } from '../aggregate/event-generator.js';
import { describeMachine, machineInfo } from '../ingest/machine-info.js';
import { parseFlags, positiveInt, UsageError } from '../shared/bench-flags.js';
import { closeMode, openMode, type BenchMode } from '../shared/mode-stores.js';

const DAY_MS = 86_400_000;
const START_MS = Date.UTC(2026, 9, 1);
const SPAN_MS = 7 * DAY_MS;
const TARGET_MS = 500;

const USAGE = 'usage: npm run bench:funnels -- [--events 1000000] [--modes embedded,kafka] [--rounds 5]';

function options(): { events: number; modes: BenchMode[]; rounds: number } {
  const v = parseFlags(process.argv.slice(2), ['events', 'modes', 'rounds'] as const, USAGE);
  const modes = (v.modes ?? 'embedded').split(',');
  const unknown = modes.filter((m) => m !== 'embedded' && m !== 'kafka');
  if (unknown.length) throw new UsageError(`--modes: unknown mode(s) ${unknown.join(', ')}\n${USAGE}`);
  return {
    events: positiveInt('--events', v.events ?? '1000000', USAGE),
    modes: modes as BenchMode[],
    rounds: positiveInt('--rounds', v.rounds ?? '5', USAGE),
  };
}

let parsed: ReturnType<typeof options>;
try {
  parsed = options();
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(2);
}
const { events, modes, rounds } = parsed;

async function load(store: Store): Promise<string> {
  const projectId = randomUUID();
  await store.projects.create({
    project_id: projectId,
    origin: 'https://acme.example',
    project: 'bench-funnels',
    account_id: 'acct-bench',
    verified: true,
    verification_token: 'x',
    created_at: Date.now(),
  });
  const tally = emptyTally();
  const t0 = performance.now();
  for (const c of generateDataset(
    {
      projectId,
      origin: 'https://acme.example',
      project: 'bench-funnels',
      events,
      startMs: START_MS,
      spanMs: SPAN_MS,
      chunk: 20_000,
      seed: 20_261_122,
    },
    tally,
  )) {
    await store.events.insertEnriched(c.events);
  }
  process.stdout.write(
    `  loaded ${tally.events.toLocaleString('en')} events in ${tally.sessions.toLocaleString('en')} sessions in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`,
  );
  return projectId;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Medians of the wall time and of this process's CPU time (user + system) per call. */
async function timed<T>(call: () => Promise<T>): Promise<{ ms: number; cpuMs: number; result: T }> {
  await call(); // warm-up
  const times: number[] = [];
  const cpu: number[] = [];
  let result!: T;
  for (let i = 0; i < rounds; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    result = await call();
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { ms: median(times), cpuMs: median(cpu), result };
}

const STEPS = ['pageview', 'click', 'add_to_cart', 'checkout'].map((action, i) => compileFunnelStep({ action }, i));
const BASE: FunnelSpec = {
  window: { start: START_MS, end: START_MS + SPAN_MS + DAY_MS },
  steps: STEPS,
  unit: 'session',
  order: 'strict',
  conversionWindowMs: DAY_MS,
  breakdown: null,
};
const VARIANTS: Array<[string, Partial<FunnelSpec>]> = [
  ['4 steps, strict, per session (the target)', {}],
  ['4 steps, any order, per session', { order: 'any' }],
  ['4 steps, strict, per visitor', { unit: 'visitor' }],
  ['4 steps, strict, per session, by browser', { breakdown: 'browser' }],
];

async function runMode(mode: BenchMode): Promise<boolean> {
  process.stdout.write(`\n-- ${mode}, ${events.toLocaleString('en')} events over 7 days --\n`);
  const adapters = await openMode(mode, { bench: 'funnels', label: String(events) });
  let ok = true;
  const cpu = (cpuMs: number) => (mode === 'embedded' ? ` (CPU ${cpuMs.toFixed(0)} ms)` : '');
  try {
    process.stdout.write(`  ${adapters.describe}\n`);
    const projectId = await load(adapters.store);
    const count = await timed(() => adapters.store.events.countEnriched(projectId));
    process.stdout.write(
      `  events.countEnriched: ${count.ms.toFixed(0)} ms${cpu(count.cpuMs)} (${count.result.toLocaleString('en')} events)\n`,
    );
    for (const [label, over] of VARIANTS) {
      const { ms, cpuMs, result } = await timed(() => adapters.store.funnels.query(projectId, { ...BASE, ...over }));
      const entered = result.total.map((s) => s.entered).join(' → ');
      const medians = result.total
        .slice(0, -1)
        .map((s) => s.medianMsToNext)
        .join(', ');
      const target =
        label.endsWith('(the target)') && mode === 'embedded'
          ? ms <= TARGET_MS
            ? ` (target ≤ ${TARGET_MS} ms: met)`
            : ` (target ≤ ${TARGET_MS} ms: MISSED)`
          : '';
      if (target.includes('MISSED')) ok = false;
      process.stdout.write(
        `  ${label}: ${ms.toFixed(0)} ms${cpu(cpuMs)}, ${(ms / count.ms).toFixed(1)}× countEnriched; entered ${entered}; median ms to next ${medians}${target}\n`,
      );
    }
  } finally {
    await closeMode(adapters);
  }
  return ok;
}

process.stdout.write(
  `funnel benchmark: median of ${rounds} runs after a warm-up\nmachine: ${describeMachine(machineInfo())}\n`,
);
let ok = true;
try {
  for (const mode of modes) ok = (await runMode(mode)) && ok;
} finally {
  await stopAllEngines();
}
process.exitCode = ok ? 0 : 1;
