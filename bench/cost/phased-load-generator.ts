// The load generator of `npm run bench:cost`, its own process like bench/ingest's: the same
// autocannon load run as consecutive phases (warm-up, window, probe), a new autocannon per phase
// started as the previous one returns, so the load never pauses and each phase has its own
// latency figures. Prints one JSON line as each phase starts and one with its result.
import { runAutocannon } from '../ingest/autocannon-load.js';
import type { PhasedLoadSpec, PhaseLine } from './phased-load.js';

const say = (line: PhaseLine) => process.stdout.write(`${JSON.stringify(line)}\n`);

const spec = JSON.parse(process.argv[2] ?? '{}') as PhasedLoadSpec;
for (const phase of spec.phases) {
  say({ phase: phase.name, at: Date.now() });
  const result = await runAutocannon({ ...spec.load, durationSec: phase.durationSec });
  say({ phase: phase.name, at: Date.now(), result });
}
