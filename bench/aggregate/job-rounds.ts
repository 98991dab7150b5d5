// Step 2 and 3: the worker's real handlers, aggregationJob and transitionsJob
// (services/worker/src/result-jobs.ts), over the window holding every loaded event, against the
// cheapest full pass over the same rows the store offers, events.countEnriched (DuckDB: a
// count over the project's rows; ClickHouse: the same under FINAL, so the sorting key is read
// and merged). Each round runs the three in turn on the same store; medians over the rounds.
// The handlers get a real WebhookOutbox on the same store: the project has no webhooks, so
// digest.created costs one records.list.
import { randomUUID } from 'node:crypto';
import { createLogger } from '@spoor/service-log';
import type { JobKind, JobRecord, ProjectRecord } from '@spoor/schemas';
import type { Window } from '@spoor/store';
import { aggregationJob, transitionsJob, WebhookOutbox } from '@spoor/worker';
import { readsDuring, type ReadStall } from './concurrent-reads.js';
import type { DatasetTally } from './event-generator.js';
import { readPeaks, resetPeaks, type ChildProcess, type PeakRss } from './memory-peaks.js';
import type { ModeAdapters } from '../shared/mode-stores.js';

export type Phase = 'count' | 'aggregation' | 'transitions';
const PHASES: readonly Phase[] = ['count', 'aggregation', 'transitions'];

export interface JobsResult {
  window: Window;
  /** Seconds per phase, in round order. */
  rounds: Array<Record<Phase, number>>;
  /** Medians, seconds. */
  sec: Record<Phase, number>;
  /** Loaded events / median seconds. */
  eventsPerSec: Record<Phase, number>;
  /** Median handler time / median count time. */
  ratio: { aggregation: number; transitions: number };
  /** Highest peak RSS of each phase over the rounds. */
  memory: Record<Phase, PeakRss>;
  /** What the handlers returned in the last round. */
  outcomes: { aggregation: unknown; transitions: unknown };
  /** One more run of each handler, untimed, with a small read every 50 ms beside it. */
  stalls: { aggregation: ReadStall; transitions: ReadStall };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function jobRecord(kind: JobKind, project: ProjectRecord, w: Window): JobRecord {
  const now = Date.now();
  return {
    job_id: randomUUID(),
    account_id: project.account_id,
    project_id: project.project_id,
    kind,
    status: 'running',
    request: { window_start: w.start, window_end: w.end },
    created_at: now,
    started_at: now,
    finished_at: null,
    progress: null,
    result: null,
    error: null,
    attempts: 1,
    worker: 'bench-aggregate',
    updated_at: now,
  };
}

function phaseRunners(
  a: ModeAdapters,
  project: ProjectRecord,
  w: Window,
  tally: DatasetTally,
): Record<Phase, () => Promise<unknown>> {
  const logger = createLogger('bench-aggregate', 'warn');
  const outbox = new WebhookOutbox({
    store: a.store,
    kv: a.kv,
    clock: Date.now,
    logger,
    allowPrivate: false,
    instance: 'bench-aggregate',
  });
  const deps = { store: a.store, clock: Date.now, outbox };
  const handlers = { aggregation: aggregationJob(deps), transitions: transitionsJob(deps) };
  const ctx = { progress: async () => {}, heartbeat: async () => {}, signal: new AbortController().signal, logger };
  return {
    count: async () => {
      const n = await a.store.events.countEnriched(project.project_id);
      if (n !== tally.events) throw new Error(`countEnriched answered ${n}, ${tally.events} loaded`);
      return n;
    },
    aggregation: () => handlers.aggregation(jobRecord('aggregation', project, w), ctx),
    transitions: () => handlers.transitions(jobRecord('transitions', project, w), ctx),
  };
}

function higher(a: PeakRss | undefined, b: PeakRss): PeakRss {
  if (!a) return b;
  const children = { ...a.children };
  for (const [name, mib] of Object.entries(b.children)) children[name] = Math.max(children[name] ?? 0, mib);
  return { benchMiB: Math.max(a.benchMiB, b.benchMiB), children };
}

export async function measureJobs(
  a: ModeAdapters,
  kids: ChildProcess[],
  project: ProjectRecord,
  tally: DatasetTally,
  rounds: number,
  log: (line: string) => void,
): Promise<JobsResult> {
  const w: Window = { start: tally.firstMs, end: tally.lastMs + 1 };
  const run = phaseRunners(a, project, w, tally);
  const times: JobsResult['rounds'] = [];
  const memory: Partial<Record<Phase, PeakRss>> = {};
  const outcomes: Record<Phase, unknown> = { count: null, aggregation: null, transitions: null };
  for (let r = 0; r < rounds; r++) {
    const round = {} as Record<Phase, number>;
    for (const phase of PHASES) {
      resetPeaks(kids);
      const t0 = performance.now();
      outcomes[phase] = await run[phase]();
      round[phase] = (performance.now() - t0) / 1000;
      memory[phase] = higher(memory[phase], readPeaks(kids));
    }
    times.push(round);
    log(
      `  round ${r + 1}: count ${round.count.toFixed(2)} s, aggregation ${round.aggregation.toFixed(2)} s, transitions ${round.transitions.toFixed(2)} s`,
    );
  }
  const sec = Object.fromEntries(PHASES.map((p) => [p, median(times.map((t) => t[p]))])) as Record<Phase, number>;
  return {
    window: w,
    rounds: times,
    sec,
    eventsPerSec: Object.fromEntries(PHASES.map((p) => [p, tally.events / sec[p]])) as Record<Phase, number>,
    ratio: { aggregation: sec.aggregation / sec.count, transitions: sec.transitions / sec.count },
    memory: memory as Record<Phase, PeakRss>,
    outcomes: { aggregation: outcomes.aggregation, transitions: outcomes.transitions },
    stalls: {
      aggregation: await readsDuring(a.store, project.project_id, run.aggregation),
      transitions: await readsDuring(a.store, project.project_id, run.transitions),
    },
  };
}
