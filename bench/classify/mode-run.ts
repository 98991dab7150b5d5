// One mode from empty to measured: open its store and KV, the classifier throughput, then the
// backfill, each on a project of its own; close. Both modes draw the same sessions (same seed).
import type { ClassifyBenchOptions, ClassifyMode } from './classify-options.js';
import { measureBackfill, type BackfillResult } from './backfill-run.js';
import { CallTimings, timedKv, timedStore } from './call-timings.js';
import { closeMode, openMode } from '../shared/mode-stores.js';
import { measureThroughput, type ThroughputResult } from './throughput-run.js';
import { SeededRandom } from '../read/seeded-random.js';

const SEED = 20261122;

export interface ModeResult {
  mode: ClassifyMode;
  adapters: string;
  classify: ThroughputResult;
  backfill: BackfillResult;
}

export async function runMode(mode: ClassifyMode, o: ClassifyBenchOptions): Promise<ModeResult> {
  const log = (line: string) => process.stdout.write(`${mode}: ${line}\n`);
  const adapters = await openMode(mode, { bench: 'classify' });
  try {
    const timings = new CallTimings();
    const ctx = {
      store: timedStore(adapters.store, timings),
      kv: timedKv(adapters.kv, timings),
      timings,
      rng: new SeededRandom(SEED),
    };
    log(adapters.describe);
    const classify = await measureThroughput(ctx, { sessions: o.classifySessions, rounds: o.rounds, batch: o.batch });
    log(
      `classify ${Math.round(classify.endToEndRate)} sessions/s end to end, ${Math.round(classify.pureRate)} pure evaluation (${classify.matchedRulesPerSession.toFixed(1)} rules matched per session)`,
    );
    const backfill = await measureBackfill(ctx, o.sessions, log);
    log(
      `backfill of ${backfill.sessions} sessions ${backfill.backfillSec.toFixed(1)} s, page-through alone ${backfill.pageOnlySec.map((s) => s.toFixed(1)).join(' / ')} s`,
    );
    return { mode, adapters: adapters.describe, classify, backfill };
  } finally {
    await closeMode(adapters);
  }
}
