import { expect } from 'chai';
import { loadConfig } from '@spoor/config';
import { createLogger } from '@spoor/service-log';
import { openAdapters } from '@spoor/runtime';
import { clickhouseUrl, kafkaBrokers, redisUrl, requireEngine } from '@spoor/testkit';
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

// Issue 16, item 4 (docs/reliability.md): split mode on one broker, two copies of every service;
// one enricher, one sessionizer and one classifier are SIGKILLed mid-run and not restarted. The
// survivors must take over their partitions (after the group's session timeout) and process
// everything: each acknowledged event stored once, each session's summary counting its events
// once, from its first to its last.

const KINDS = ['ingest', 'enricher', 'sessionizer', 'classifier'] as const;

describe('Faults: a consumer of each kind is killed under load in split mode', function () {
  this.timeout(240_000);
  const processes: SpoorProcess[] = [];
  const loads: LoadClient[] = [];

  after(async () => {
    await Promise.all(loads.map((l) => l.stop()));
    await Promise.all(processes.map((p) => p.kill('SIGTERM')));
  });

  it('the survivors take over: nothing lost, nothing counted twice, sessions whole', async function () {
    const [brokers, clickhouse, redis] = await Promise.all([kafkaBrokers(), clickhouseUrl(), redisUrl()]);
    requireEngine(this, brokers && clickhouse && redis ? 'ok' : null, 'kafka mode engines');
    const env = await deploymentEnv(brokers!, clickhouse!, redis!);
    const config = loadConfig(env);
    const project = await registerFaultProject(config);
    const copies: Record<(typeof KINDS)[number], SpoorProcess[]> = {
      ingest: [],
      enricher: [],
      sessionizer: [],
      classifier: [],
    };
    for (const kind of KINDS) {
      for (let copy = 0; copy < 2; copy++) {
        const p = await startSplitProcess(env, kind, processes);
        copies[kind].push(p);
      }
    }
    // Three clients on each ingest copy, each its own session.
    for (const [i, ingest] of copies.ingest.entries()) {
      const load = new LoadClient(ingest.url, 15_000, 10, `i${i}w`);
      loads.push(load);
      load.start(3);
    }
    const ackedTotal = () => loads.reduce((n, l) => n + l.acked.size, 0);
    await waitFor(
      async () => ackedTotal(),
      (n) => n >= 500,
      60_000,
      'acknowledged events before the kills',
    );
    const killedAt = Date.now();
    await Promise.all(
      [copies.enricher[0]!, copies.sessionizer[0]!, copies.classifier[0]!].map((p) => p.kill('SIGKILL')),
    );
    await sleep(12_000); // past the group session timeout (10 s): the survivors must have rebalanced
    await Promise.all(loads.map((l) => l.stop()));
    const ackedAfterKill = loads.reduce(
      (n, l) => n + l.answers.filter((a) => a.at >= killedAt && a.status === 200).length,
      0,
    );
    for (const l of loads) await l.retryUnacked();
    const acked = new Set(loads.flatMap((l) => [...l.acked]));

    // What a user waits for: everything enriched and counted (the survivors' work alone).
    const adapters = await openAdapters(config, createLogger('rebalance-check', 'error'));
    const survivors = processes.filter(
      (p) => ![copies.enricher[0], copies.sessionizer[0], copies.classifier[0]].includes(p),
    );
    try {
      await waitFor(
        async () => [
          await adapters.store.events.countEnriched(project.project_id),
          (await adapters.store.sessions.list(project.project_id, { limit: 100 })).reduce(
            (n, s) => n + s.event_count,
            0,
          ),
        ],
        ([enriched, counted]) => enriched! >= acked.size && counted! >= acked.size,
        90_000,
        'the survivors to enrich and count every event',
      ).catch(async (err: Error) => {
        const states = await Promise.all(
          survivors.map(
            async (p) => `${p.env['SPOOR_SERVICES']}: ${JSON.stringify(await p.healthz())}\n${await p.logTail(5)}`,
          ),
        );
        throw new Error(`${err.message} (acknowledged ${acked.size})\n${states.join('\n')}`);
      });
      await sleep(2_000); // a late double count would show now
      const check = await setCheck(config, project.project_id, acked);
      const sessionIds = ['i0w0', 'i0w1', 'i0w2', 'i1w0', 'i1w1', 'i1w2'].map((w) => `s-${w}`);
      const perSession = await Promise.all(
        sessionIds.map(async (id) => ({
          summary: await adapters.store.sessions.get(project.project_id, id),
          events: await adapters.store.events.sessionEvents(project.project_id, id),
          acked: [...acked].filter((e) => e.startsWith(`${id.slice(2)}-`)).length,
        })),
      );
      console.log(
        `      batches acknowledged after the kills ${ackedAfterKill}; acknowledged ${check.acked}, stored ${check.stored}, lost ${check.lost.length}, duplicates ${check.duplicates}, enriched ${check.enriched}, counted in sessions ${check.sessionEvents} (${check.sessions} sessions)`,
      );
      expect(ackedAfterKill, 'ingest kept acknowledging after the kills').to.be.greaterThan(0);
      expect(check.lost, 'acknowledged events lost').to.deep.equal([]);
      expect(check.duplicates).to.equal(0);
      expect(check.stored).to.equal(check.acked);
      expect(check.enriched).to.equal(check.acked);
      expect(check.enrichedDuplicates).to.equal(0);
      expect(check.sessionEvents, 'no double count in session summaries').to.equal(check.acked);
      for (const [i, s] of perSession.entries()) {
        const id = sessionIds[i]!;
        // The client sent its batches one after another: by (timestamp, sequence) the stored
        // events of its session are exactly what it sent, in order, with none missing.
        const seq = s.events.map(
          (e) => (e.payload as { i: number; j: number }).i * 1000 + (e.payload as { i: number; j: number }).j,
        );
        expect(seq, `${id}: stored in the order sent`).to.deep.equal([...seq].sort((a, b) => a - b));
        expect(s.events.length, `${id}: every acknowledged event, once`).to.equal(s.acked);
        expect(s.summary?.event_count, `${id}: summary counts each event once`).to.equal(s.acked);
        expect(s.summary?.first_event_at).to.equal(s.events[0]!.timestamp);
        expect(s.summary?.last_event_at).to.equal(s.events[s.events.length - 1]!.timestamp);
      }
    } finally {
      await adapters.close();
    }
  });
});
