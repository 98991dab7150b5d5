// `node dist/bench/stats/run.js`: the dashboard Overview page's stats queries (issue 44) at the
// store, on the aggregate benchmark's project (bench/aggregate/project-loader.ts: N events over
// 30 days, sessions and tags), each timed ROUNDS times after a warm-up, p50 and p99 (the
// slowest of fewer than 100 runs); then the page's whole set, one after another and all at once
// (as the dashboard asks), with the stored overview's one call over the same 30 days beside them
// for scale. Absolute ms with the machine described (CONVENTIONS.md, Benchmarks). Every run is a
// query the engine answers: the store keeps no answers. The first query after the load is timed
// apart: it rebuilds the rollups of every hour the load marked (docs/performance.md, Stats query).
// `npm run bench:read` runs it after the gateway's read benchmark.
//   node dist/bench/stats/run.js [--events N] [--modes embedded,kafka] [--rounds N]
import type { StatsSpec, Store } from '@spoor/store';
import { stopAllEngines } from '@spoor/testkit';
import { loadProject } from '../aggregate/project-loader.js';
import { describeMachine, machineInfo } from '../ingest/machine-info.js';
import { parseFlags, positiveInt, UsageError } from '../shared/bench-flags.js';
import { closeMode, openMode, type BenchMode } from '../shared/mode-stores.js';

const DAY_MS = 86_400_000;
/** The loader's 30 days (project-loader.ts). */
const RANGE = { start: Date.UTC(2026, 9, 1), end: Date.UTC(2026, 9, 31) };
const USAGE = 'usage: node dist/bench/stats/run.js [--events 1000000] [--modes embedded,kafka] [--rounds 20]';

function options(): { events: number; modes: BenchMode[]; rounds: number } {
  const v = parseFlags(process.argv.slice(2), ['events', 'modes', 'rounds'] as const, USAGE);
  const modes = (v.modes ?? 'embedded').split(',');
  if (modes.some((m) => m !== 'embedded' && m !== 'kafka')) throw new UsageError(`--modes: embedded, kafka\n${USAGE}`);
  return {
    events: positiveInt('--events', v.events ?? '1000000', USAGE),
    modes: modes as BenchMode[],
    rounds: positiveInt('--rounds', v.rounds ?? '20', USAGE),
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

const base = (over: Partial<StatsSpec>): StatsSpec => ({
  window: RANGE,
  metrics: ['visitors'],
  dimensions: [],
  bucketMs: null,
  filters: [],
  goal: null,
  orderBy: [['visitors', 'desc']],
  limit: 10,
  offset: 0,
  ...over,
});
const top = (dimension: 'page' | 'referrer' | 'utm_source' | 'country' | 'browser' | 'device' | 'entry_page') =>
  base({ dimensions: [dimension], metrics: ['visitors', dimension === 'page' ? 'pageviews' : 'sessions'] });

/** What the Overview page asks: the figures (and the previous period's), the series, the top lists. */
const QUERIES: Array<[string, StatsSpec]> = [
  [
    'figures',
    base({
      metrics: ['visitors', 'sessions', 'events', 'pageviews', 'bounce_rate', 'visit_duration', 'views_per_session'],
    }),
  ],
  [
    'figures, previous period',
    base({
      window: { start: 2 * RANGE.start - RANGE.end, end: RANGE.start },
      metrics: ['visitors', 'sessions', 'events', 'pageviews', 'bounce_rate', 'visit_duration', 'views_per_session'],
    }),
  ],
  [
    'series by day',
    base({
      metrics: ['visitors', 'events', 'sessions'],
      dimensions: ['time:day'],
      bucketMs: DAY_MS,
      orderBy: [['time:day', 'asc']],
      limit: 100,
    }),
  ],
  ['top pages', top('page')],
  ['top entry pages', top('entry_page')],
  ['top referrers', top('referrer')],
  ['top utm sources', top('utm_source')],
  ['top countries', top('country')],
  ['top browsers', top('browser')],
  ['top devices', top('device')],
  [
    'top countries, Chrome only',
    base({
      metrics: ['visitors', 'sessions'],
      dimensions: ['country'],
      filters: [{ dimension: 'browser', op: 'is', values: ['Chrome'] }],
    }),
  ],
];

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

/**
 * Wall time p50 and p99, and the process's CPU time a run (p50: DuckDB's threads are the
 * process's), which other work on a shared machine changes much less than the wall time.
 */
async function time(call: () => Promise<unknown>, warm = true): Promise<{ p50: number; p99: number; cpu: number }> {
  if (warm) await call();
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await call();
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99), cpu: quantile(cpu, 0.5) };
}

async function runMode(mode: BenchMode): Promise<void> {
  process.stdout.write(`\n-- ${mode}, ${events.toLocaleString('en')} events over 30 days --\n`);
  const adapters = await openMode(mode, { bench: 'stats', label: String(events) });
  try {
    const store: Store = adapters.store;
    process.stdout.write(`  ${adapters.describe}\n`);
    const { project } = await loadProject(store, events, 20_000, (line) => process.stdout.write(`${line}\n`));
    const id = project.project_id;
    const t0 = performance.now();
    await store.stats.query(id, QUERIES[0]![1]);
    process.stdout.write(
      `  first query after the load (embedded: it rebuilds the marked hours' rollups): ${(performance.now() - t0).toFixed(0)} ms\n`,
    );
    process.stdout.write('| query | p50 ms | p99 ms | CPU ms (p50) |\n|---|---:|---:|---:|\n');
    let sum = 0;
    let cpu = 0;
    for (const [label, spec] of QUERIES) {
      const t = await time(() => store.stats.query(id, spec));
      sum += t.p50;
      cpu += t.cpu;
      process.stdout.write(`| ${label} | ${t.p50.toFixed(0)} | ${t.p99.toFixed(0)} | ${t.cpu.toFixed(0)} |\n`);
    }
    process.stdout.write(
      `| the page's queries, one after another (sum of p50) | ${sum.toFixed(0)} | | ${cpu.toFixed(0)} |\n`,
    );
    const serial = await time(async () => {
      for (const [, spec] of QUERIES) await store.stats.query(id, spec);
    }, false);
    process.stdout.write(
      `| the page's queries, one after another | ${serial.p50.toFixed(0)} | ${serial.p99.toFixed(0)} | ${serial.cpu.toFixed(0)} |\n`,
    );
    const together = await time(() => Promise.all(QUERIES.map(([, spec]) => store.stats.query(id, spec))), false);
    process.stdout.write(
      `| the page's queries, all at once | ${together.p50.toFixed(0)} | ${together.p99.toFixed(0)} | ${together.cpu.toFixed(0)} |\n`,
    );
    const o = await time(() => store.analytics.overview(id, RANGE, 10, DAY_MS));
    process.stdout.write(
      `| stored overview's one call, for scale | ${o.p50.toFixed(0)} | ${o.p99.toFixed(0)} | ${o.cpu.toFixed(0)} |\n`,
    );
  } finally {
    await closeMode(adapters);
  }
}

process.stdout.write(
  `stats benchmark: ${rounds} runs a query after a warm-up\nmachine: ${describeMachine(machineInfo())}\n`,
);
try {
  for (const mode of modes) await runMode(mode);
} finally {
  await stopAllEngines();
}
