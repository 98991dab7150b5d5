// The load generator, run as its own process so that it never shares an event loop with the
// server it measures. Takes a LoadSpec as JSON in argv[2], drives autocannon's API for the
// given duration and prints autocannon's result as one JSON line on stdout.
import { runAutocannon } from './autocannon-load.js';
import type { LoadSpec } from './load-runner.js';

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
const result = await runAutocannon(spec);
process.stdout.write(`${JSON.stringify(result)}\n`);
