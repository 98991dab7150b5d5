// `npm run chaos -- --kills 100 [--mode split|embedded|both] [--every-ms 3000]` (issue 16, item 5;
// docs/reliability.md): Spoor under load while a random process of it is SIGKILLed every few seconds
// and started again, then the set check. Exits 1 when an acknowledged event was lost or stored
// twice, 2 on bad usage. Engines as the tests get them (@spoor/testkit).
import { parseArgs } from 'node:util';
import { stopAllEngines } from '@spoor/testkit';
import { runChaos, type ChaosMode } from '../../test/support/chaos-run.js';

function options(): { kills: number; modes: ChaosMode[]; everyMs: number } | null {
  try {
    const { values } = parseArgs({
      options: {
        kills: { type: 'string', default: '10' },
        mode: { type: 'string', default: 'both' },
        'every-ms': { type: 'string', default: '3000' },
      },
    });
    const kills = Number(values.kills);
    const everyMs = Number(values['every-ms']);
    const modes = values.mode === 'both' ? (['embedded', 'split'] as ChaosMode[]) : [values.mode as ChaosMode];
    if (
      !Number.isInteger(kills) ||
      kills < 0 ||
      !Number.isInteger(everyMs) ||
      everyMs < 0 ||
      !modes.every((m) => m === 'split' || m === 'embedded')
    )
      throw new Error('bad value');
    return { kills, modes, everyMs };
  } catch (err) {
    process.stderr.write(
      `chaos: ${(err as Error).message}\nusage: npm run chaos -- --kills N [--mode split|embedded|both] [--every-ms MS]\n`,
    );
    return null;
  }
}

const opts = options();
if (!opts) process.exit(2);
let failed = false;
try {
  for (const mode of opts.modes) {
    const r = await runChaos({
      mode,
      kills: opts.kills,
      everyMs: opts.everyMs,
      log: (line) => process.stdout.write(`chaos ${mode}: ${line}\n`),
    });
    if (!r) {
      process.stdout.write(`chaos ${mode}: SKIPPED (engines missing)\n`);
      continue;
    }
    const bad =
      r.lost > 0 || r.duplicates > 0 || r.enrichedDuplicates > 0 || r.stored !== r.acked || r.sessionEvents !== r.acked;
    failed ||= bad;
    process.stdout.write(
      `chaos ${mode}: kills ${r.kills} ${JSON.stringify(r.killed)}; acknowledged ${r.acked}, stored ${r.stored}, lost ${r.lost}, duplicates ${r.duplicates}, enriched ${r.enriched}, counted in sessions ${r.sessionEvents}; ${(r.ms / 1000).toFixed(0)} s; ${bad ? 'FAILED' : 'ok'}\n`,
    );
    if (r.lostIds.length) process.stdout.write(`  lost, first ids: ${r.lostIds.join(' ')}\n`);
  }
} finally {
  await stopAllEngines();
}
process.exit(failed ? 1 : 0);
