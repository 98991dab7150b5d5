import { expect } from 'chai';
import { loadConfig } from '@spoor/config';
import { partitionKey } from '@spoor/ingest';
import type { RawEvent } from '@spoor/schemas';
import { clickhouseUrl, kafkaBrokers, kafkaPartitionOf, redisUrl, requireEngine } from '@spoor/testkit';
import {
  deploymentEnv,
  LoadClient,
  registerFaultProject,
  setCheck,
  sleep,
  SpoorProcess,
  startSplitProcess,
} from '../support/fault-rig.js';
import { waitFor } from '../support/spoor-harness.js';

// Issue 19 (docs/reliability.md, "A copy added and removed under load"): an operator scales the enrichers while traffic flows. Split mode
// on one broker, raw topic of 4 partitions: two enrichers, then a third joins mid-run (the group
// rebalances and hands it partitions) and leaves again with SIGTERM (its partitions go back).
// Nothing acknowledged may be lost or doubled, sessions stay whole and in order, and the lag
// returns to 0.

const CLIENTS = 6;

/**
 * A LoadClient prefix whose clients' sessions (`s-<prefix><n>`) reach every partition of the raw
 * topic. Ingest keys a session's events onto one partition, and six sessions named at random left
 * one of four partitions without events in about 6 runs of 10: when the group handed the third
 * enricher only that partition, it had nothing to take and the test failed (about 1 run in 8).
 */
function prefixReachingEveryPartition(projectId: string, partitions: number): string {
  for (let attempt = 0; attempt < 100; attempt++) {
    const prefix = attempt === 0 ? 'w' : `w${attempt}x`;
    const reached = new Set(
      Array.from({ length: CLIENTS }, (_, n) =>
        kafkaPartitionOf(
          partitionKey({ project_id: projectId, session_id: `s-${prefix}${n}` } as RawEvent),
          partitions,
        ),
      ),
    );
    if (reached.size === partitions) return prefix;
  }
  throw new Error(`no client names found whose ${CLIENTS} sessions reach all ${partitions} partitions`);
}

interface Health {
  lag?: Record<string, number>;
  lag_sampled_at?: number;
  counters?: Record<string, number>;
}
const health = (p: SpoorProcess) => p.healthz() as Promise<Health>;
/** Events this process' enricher enriched (its /healthz counters). */
const enrichedBy = async (p: SpoorProcess) => (await health(p)).counters?.['enriched'] ?? 0;

describe('Scaling: a third enricher joins under load and leaves again', function () {
  this.timeout(240_000);
  const processes: SpoorProcess[] = [];
  const loads: LoadClient[] = [];

  after(async () => {
    await Promise.all(loads.map((l) => l.stop()));
    await Promise.all(processes.map((p) => p.kill('SIGTERM')));
  });

  it('partitions move to it and back; nothing is lost or doubled, and the lag returns to 0', async function () {
    const [brokers, clickhouse, redis] = await Promise.all([kafkaBrokers(), clickhouseUrl(), redisUrl()]);
    requireEngine(this, brokers && clickhouse && redis ? 'ok' : null, 'kafka mode engines');
    const env = await deploymentEnv(brokers!, clickhouse!, redis!);
    const config = loadConfig(env);
    const project = await registerFaultProject(config);
    const start = (kind: string) => startSplitProcess(env, kind, processes);
    const [ingest] = [await start('ingest')];
    const enrichers = [await start('enricher'), await start('enricher')];
    await start('sessionizer');
    await start('classifier');

    const prefix = prefixReachingEveryPartition(project.project_id, config.kafkaPartitions);
    const load = new LoadClient(ingest!.url, 15_000, 10, prefix);
    loads.push(load);
    load.start(CLIENTS);
    await waitFor(
      async () => load.acked.size,
      (n) => n >= 300,
      60_000,
      'acknowledged events before the third enricher',
    );

    const third = await start('enricher');
    // It took partitions and processed events from them while the load ran.
    await waitFor(
      () => enrichedBy(third),
      (n) => n > 0,
      60_000,
      'the third enricher to take work',
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${JSON.stringify(await third.healthz())}\n${await third.logTail(10)}`);
    });
    await sleep(3_000);
    const byThird = await enrichedBy(third);
    await third.kill('SIGTERM');
    expect(third.lastExit, 'it left cleanly').to.deep.equal({ code: 0, signal: null });
    const ackedBeforeLeave = load.acked.size;
    await waitFor(
      async () => load.acked.size,
      (n) => n >= ackedBeforeLeave + 200,
      60_000,
      'acknowledged events after it left',
    );
    await load.stop();
    await load.retryUnacked();

    // The two that stayed drain everything: the group's lag, sampled after the load, back to 0.
    const loadEnd = Date.now();
    const drained = await waitFor(
      () => health(enrichers[0]!),
      (h) => (h.lag_sampled_at ?? 0) > loadEnd && Object.values(h.lag ?? { none: 1 }).every((n) => n === 0),
      90_000,
      "the enrichers' lag to return to 0",
    );
    expect(Object.keys(drained.lag!)).to.have.length(1);
    const acked = new Set(load.acked);
    await waitFor(
      async () => await setCheck(config, project.project_id, acked),
      (c) => c.sessionEvents >= c.acked,
      90_000,
      'every event counted',
    );
    await sleep(2_000); // a late double count would show now
    const check = await setCheck(config, project.project_id, acked);
    console.log(
      `      acknowledged ${check.acked}; the third enricher took ${byThird} while it ran; stored ${check.stored}, lost ${check.lost.length}, duplicates ${check.duplicates}, counted in sessions ${check.sessionEvents}`,
    );
    expect(byThird, 'the third enricher did a share of the work').to.be.greaterThan(0);
    expect(check.lost, 'acknowledged events lost').to.deep.equal([]);
    expect(check.duplicates).to.equal(0);
    expect(check.stored).to.equal(check.acked);
    expect(check.enriched).to.equal(check.acked);
    expect(check.enrichedDuplicates).to.equal(0);
    expect(check.sessionEvents, 'no double count in session summaries').to.equal(check.acked);
  });
});
