// One mode at one project size, from empty to measured: a fresh store, the load, the rounds of
// baseline and result jobs, the check of what the jobs stored; close.
import type { AggregateMode } from './aggregate-options.js';
import { measureJobs, type JobsResult } from './job-rounds.js';
import { closeMode, openMode } from '../shared/mode-stores.js';
import { childProcesses, readPeaks, resetPeaks, type PeakRss } from './memory-peaks.js';
import { loadProject, type LoadResult } from './project-loader.js';
import { checkMatrix, checkOverview } from './result-checks.js';

export interface SizeResult {
  mode: AggregateMode;
  events: number;
  adapters: string;
  load: Omit<LoadResult, 'project'> & { projectId: string; memory: PeakRss };
  jobs: JobsResult;
  /** A few figures of the stored results, to see the data was not trivial. */
  results: { visitors: number; bounceRate: number; durationP50Ms: number; states: number; transitions: number };
}

export async function runSize(
  mode: AggregateMode,
  events: number,
  o: { rounds: number; chunk: number; duckdbMemory: string },
): Promise<SizeResult> {
  const log = (line: string) => process.stdout.write(`${mode} ${events.toLocaleString('en')}: ${line}\n`);
  const adapters = await openMode(mode, { bench: 'aggregate', label: String(events), duckdbMemory: o.duckdbMemory });
  // The engines' processes are up once the stores are open; listed once, not at every phase.
  const kids = childProcesses();
  try {
    log(adapters.describe);
    resetPeaks(kids);
    const { project, ...load } = await loadProject(adapters.store, events, o.chunk, log);
    const loadMemory = readPeaks(kids);
    log(
      `loaded ${load.tally.events.toLocaleString('en')} events, ${load.tally.sessions.toLocaleString('en')} sessions, ${load.tally.tagFacts.toLocaleString('en')} tag facts in ${load.loadSec.toFixed(1)} s`,
    );
    const jobs = await measureJobs(adapters, kids, project, load.tally, o.rounds, log);
    const overview = await checkOverview(adapters.store, project.project_id, jobs.window, load.tally);
    const matrix = await checkMatrix(adapters.store, project.project_id, jobs.window, load.tally);
    log(
      `medians: count ${jobs.sec.count.toFixed(2)} s, aggregation ${jobs.sec.aggregation.toFixed(2)} s (x${jobs.ratio.aggregation.toFixed(1)}), transitions ${jobs.sec.transitions.toFixed(2)} s (x${jobs.ratio.transitions.toFixed(1)}); results checked`,
    );
    return {
      mode,
      events,
      adapters: adapters.describe,
      load: { ...load, projectId: project.project_id, memory: loadMemory },
      jobs,
      results: {
        visitors: overview.visitors,
        bounceRate: overview.bounce_rate,
        durationP50Ms: overview.duration_ms.p50,
        states: matrix.states.length,
        transitions: matrix.transitions.length,
      },
    };
  } finally {
    await closeMode(adapters);
  }
}
