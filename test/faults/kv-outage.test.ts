import { expect } from 'chai';
import { requireEngine } from '@spoor/testkit';
import { FAULT_ORIGIN, FAULT_PROJECT, setCheck, sleep, startFaultRig, type FaultRig } from '../support/fault-rig.js';
import { post, waitFor } from '../support/spoor-harness.js';

// Issue 16, item 3 (docs/reliability.md, "What Redis holds"): Redis is killed for 10 s under load and
// started again empty (no persistence, as DESIGN.md allows: it holds only what can be rebuilt).
// Dedup keys, open session states and leases are gone; the store rebuilds what matters. No
// acknowledged event may be lost or counted twice, also when clients repeat their latest batches
// after the restart (the logger's retries), when the enricher's dedup keys are gone.

const OUTAGE_MS = 10_000;

describe('Faults: Redis stops for 10 s under load and comes back empty', function () {
  this.timeout(150_000);
  let rig: FaultRig | null = null;

  after(async () => {
    await rig?.stop();
  });

  it('loses nothing acknowledged and counts nothing twice', async function () {
    // Rate limits on (high): their counters live in Redis too, and must not fail ingest with it.
    rig = await startFaultRig('redis', { SPOOR_RATE_INGEST_IP: '1000000', SPOOR_RATE_INGEST_PROJECT: '1000000' });
    requireEngine(this, rig ? 'ok' : null, 'kafka mode engines');
    const { engine, spoor } = rig!;
    const load = rig!.load(15_000);
    load.start(6);
    await waitFor(
      async () => load.acked.size,
      (n) => n >= 300,
      30_000,
      'acknowledged events before the fault',
    );

    const haltedAt = Date.now();
    await engine.halt('SIGKILL');
    await sleep(OUTAGE_MS);
    const restartAt = Date.now();
    await engine.restart();
    await sleep(3_000);
    await load.stop();

    // Client repeats after the restart: each worker's two latest acknowledged batches, sent again
    // with the same event ids, as the logger does when an answer is lost.
    const latest = new Map<string, Array<{ event_id: string }>>();
    for (const id of load.acked) {
      const worker = id.split('-')[0]!;
      const list = latest.get(worker) ?? [];
      list.push({ event_id: id });
      latest.set(worker, list);
    }
    let repeated = 0;
    for (const [worker, ids] of latest) {
      const last = ids.slice(-10).map(({ event_id }) => ({
        project: FAULT_PROJECT,
        origin: FAULT_ORIGIN,
        action: 'click',
        timestamp: Date.now(),
        session_id: `s-${worker}`,
        event_id,
        payload: { repeat: true },
      }));
      const res = await post(`${spoor.url}/v1/event/batch`, { events: last });
      expect(res.status, 'a repeat is accepted').to.equal(200);
      repeated += last.length;
    }

    const during = load.answers.filter((a) => a.at >= haltedAt && a.at < restartAt);
    const statuses = Object.entries(
      load.answers.reduce<Record<string, number>>((m, a) => ((m[a.status] = (m[a.status] ?? 0) + 1), m), {}),
    );
    console.log(
      `      answers: ${statuses.map(([s, n]) => `${s}×${n}`).join(', ')}, ${during.length} while Redis was away; repeated after the restart ${repeated}`,
    );
    expect(during.length, 'requests answered while Redis was away').to.be.greaterThan(20);
    expect(
      load.answers.filter((a) => a.status !== 200 && a.status !== 503),
      'no 500, no hang: 200, or 503 with Retry-After',
    ).to.deep.equal([]);

    await load.retryUnacked();
    await spoor.drained();
    const check = await setCheck(rig!.config, rig!.project.project_id, load.acked);
    console.log(
      `      acknowledged ${check.acked}, stored ${check.stored}, lost ${check.lost.length}, duplicates ${check.duplicates}, enriched ${check.enriched}, counted in sessions ${check.sessionEvents} (${check.sessions} sessions)`,
    );
    expect(check.lost, 'acknowledged events lost').to.deep.equal([]);
    expect(check.duplicates, 'raw duplicates').to.equal(0);
    expect(check.stored).to.equal(check.acked);
    expect(check.enriched).to.equal(check.acked);
    expect(check.enrichedDuplicates).to.equal(0);
    expect(check.sessions, 'one session per client').to.equal(6);
    expect(check.sessionEvents, 'each event counted in one session, once, repeats included').to.equal(check.acked);
  });
});
