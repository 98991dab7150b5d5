import { loadConfig } from '@spoor/config';
import { createLogger } from '@spoor/service-log';
import { openAdapters } from '@spoor/runtime';
import { clickhouseUrl, freePort, kafkaBrokers, makeTempDir, redisUrl } from '@spoor/testkit';
import {
  deploymentEnv,
  LoadClient,
  registerFaultProject,
  setCheck,
  sleep,
  SpoorProcess,
  type SetCheck,
} from './fault-rig.js';
import { waitFor } from './spoor-harness.js';

// Chaos (issue 16, item 5; docs/reliability.md): Spoor under load while a random process of it is
// SIGKILLed every few seconds and started again; then the set check. `npm run chaos` runs it from
// the command line (bench/chaos/run.ts), test/faults/chaos.test.ts with a small count in CI.

export type ChaosMode = 'split' | 'embedded';

export interface ChaosOptions {
  mode: ChaosMode;
  kills: number;
  /** Pause between a restart and the next kill. */
  everyMs: number;
  log: (line: string) => void;
}

export interface ChaosResult extends Omit<SetCheck, 'lost'> {
  mode: ChaosMode;
  kills: number;
  killed: Record<string, number>;
  lost: number;
  lostIds: string[];
  ms: number;
}

/** The services of each copy: split mode on Kafka, ClickHouse, Redis; embedded the one process. */
const LAYOUT: Record<ChaosMode, string[]> = {
  split: ['ingest', 'ingest', 'enricher', 'enricher', 'sessionizer', 'sessionizer', 'classifier'],
  embedded: ['all'],
};

export async function runChaos(opts: ChaosOptions): Promise<ChaosResult | null> {
  const started = Date.now();
  const env = await chaosEnv(opts.mode);
  if (!env) return null;
  const config = loadConfig(env);
  const project = await registerFaultProject(config);
  const processes: SpoorProcess[] = [];
  for (const services of LAYOUT[opts.mode]) {
    const port = await freePort();
    const own: Record<string, string> =
      services === 'all'
        ? {}
        : {
            SPOOR_SERVICES: services,
            SPOOR_HEALTH_HTTP: 'true',
            SPOOR_DATA_DIR: await makeTempDir(`chaos-${services}`),
          };
    processes.push(new SpoorProcess({ ...env, ...own, SPOOR_PORT: String(port) }, `http://127.0.0.1:${port}`));
  }
  const ingests = processes.filter((p) => ['ingest', undefined].includes(p.env['SPOOR_SERVICES']));
  const loads = ingests.map((p, i) => new LoadClient(p.url, 15_000, 5, `c${i}w`));
  const killed: Record<string, number> = {};
  try {
    // One after the other: seven Node processes starting at once on two cores (GeoIP, group
    // joins) outran the start timeout.
    for (const p of processes) await p.start();
    // Paced (a pause after each batch): the drain, not the load, would otherwise set the run's
    // length. In order, as the logger retries: a repeat of an event more than 64 events back in
    // its session, after a restart emptied the dedup window, is counted twice (docs/reliability.md).
    for (const l of loads) l.start(3, 50, true);
    for (let k = 0; k < opts.kills; k++) {
      await sleep(opts.everyMs);
      const victim = processes[Math.floor(Math.random() * processes.length)]!;
      const name = victim.env['SPOOR_SERVICES'] ?? 'all-in-one';
      await victim.kill('SIGKILL');
      killed[name] = (killed[name] ?? 0) + 1;
      await victim.start();
      opts.log(
        `kill ${k + 1}/${opts.kills}: ${name}; acknowledged so far ${loads.reduce((n, l) => n + l.acked.size, 0)}`,
      );
    }
    await sleep(opts.everyMs);
    await Promise.all(loads.map((l) => l.stop()));
    for (const l of loads) await l.retryUnacked();
    const acked = new Set(loads.flatMap((l) => [...l.acked]));
    await drained(opts.mode, processes, config, project.project_id, acked.size);
    if (opts.mode === 'embedded') await Promise.all(processes.map((p) => p.kill('SIGTERM'))); // DuckDB: one process at a time
    const check = await setCheck(config, project.project_id, acked);
    return {
      ...check,
      mode: opts.mode,
      kills: opts.kills,
      killed,
      lost: check.lost.length,
      lostIds: check.lost.slice(0, 20),
      ms: Date.now() - started,
    };
  } finally {
    await Promise.all(loads.map((l) => l.stop()));
    await Promise.all(processes.map((p) => p.kill('SIGTERM')));
  }
}

async function chaosEnv(mode: ChaosMode): Promise<Record<string, string> | null> {
  if (mode === 'embedded')
    return {
      SPOOR_DATA_DIR: await makeTempDir('chaos'),
      SPOOR_PORT: '0',
      SPOOR_LOG_LEVEL: 'error',
      SPOOR_RATE_INGEST_IP: '0',
      SPOOR_RATE_INGEST_PROJECT: '0',
    };
  const [brokers, clickhouse, redis] = await Promise.all([kafkaBrokers(), clickhouseUrl(), redisUrl()]);
  return brokers && clickhouse && redis ? deploymentEnv(brokers, clickhouse, redis) : null;
}

/** Until every acknowledged event is enriched and counted in a session (split), or every lag is 0 (embedded). */
async function drained(
  mode: ChaosMode,
  processes: SpoorProcess[],
  config: ReturnType<typeof loadConfig>,
  projectId: string,
  acked: number,
): Promise<void> {
  if (mode === 'embedded') return processes[0]!.drained(120_000);
  const adapters = await openAdapters(config, createLogger('chaos-check', 'error'));
  try {
    await waitFor(
      async () => [
        await adapters.store.events.countEnriched(projectId),
        (await adapters.store.sessions.list(projectId, { limit: 1000 })).reduce((n, s) => n + s.event_count, 0),
      ],
      ([enriched, counted]) => enriched! >= acked && counted! >= acked,
      120_000,
      'every acknowledged event enriched and counted',
    );
    await sleep(2_000); // a late double count would show now
  } finally {
    await adapters.close();
  }
}
