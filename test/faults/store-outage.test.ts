import { expect } from 'chai';
import { requireEngine } from '@spoor/testkit';
import { setCheck, sleep, startFaultRig, type FaultRig } from '../support/fault-rig.js';
import { post, waitFor } from '../support/spoor-harness.js';

// Issue 16, item 2 (docs/reliability.md): the ClickHouse engine (chDB behind ClickHouse's HTTP
// interface) is killed for 10 s under load, then started again on its port and data dir. Kafka
// holds the events meanwhile: ingest keeps answering 200; the consumers retry their batch with
// back-off and commit nothing past it; the outage shows in /v1/status/health and /metrics; once
// the store is back they catch up and every acknowledged event is stored once.

const OPERATOR = 'ops@faults.example';
const OUTAGE_MS = 10_000;

interface Health {
  status: string;
  problems: string[];
}

describe('Faults: the ClickHouse store stops for 10 s under load', function () {
  this.timeout(150_000);
  let rig: FaultRig | null = null;

  after(async () => {
    await rig?.stop();
  });

  it('keeps accepting, reports the outage, catches up, and stores every acknowledged event once', async function () {
    rig = await startFaultRig('clickhouse', { SPOOR_ADMIN_EMAILS: OPERATOR, SPOOR_HEARTBEAT_MS: '1000' });
    requireEngine(this, rig ? 'ok' : null, 'kafka mode engines');
    const { engine, spoor } = rig!;
    const signup = await post(`${spoor.url}/v1/auth/signup`, { email: OPERATOR, password: 'a long operator password' });
    expect(signup.status).to.equal(200);
    const auth = { authorization: `Bearer ${signup.body.id_token as string}` };
    const health = async (): Promise<{ status: number; body: Health }> => {
      try {
        const res = await fetch(`${spoor.url}/v1/status/health`, {
          headers: auth,
          signal: AbortSignal.timeout(10_000),
        });
        return { status: res.status, body: (await res.json()) as Health };
      } catch (err) {
        return { status: 0, body: { status: `no answer: ${(err as Error).message}`, problems: [] } };
      }
    };
    const metrics = async () => (await fetch(`${spoor.url}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
    const rawLag = async () => {
      const h = (await (await fetch(`${spoor.url}/healthz`)).json()) as { lag: Record<string, number> };
      return Object.entries(h.lag).find(([k]) => k.includes('events.raw'))?.[1] ?? -1;
    };
    expect(
      (await waitFor(health, (h) => h.body.status === 'ok', 20_000, 'health ok before the fault')).status,
    ).to.equal(200);

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
    // While it is away: the report says so, /metrics says so, the raw lag grows and is not committed away.
    const during = await waitFor(
      health,
      (h) => h.body.status === 'degraded' && h.body.problems.some((p) => /store/i.test(p)),
      OUTAGE_MS - 2_000,
      'health to report the store',
    );
    const metricsText = await metrics();
    const lagDuring = await rawLag();
    await sleep(Math.max(0, haltedAt + OUTAGE_MS - Date.now()));
    const lagAtEnd = await rawLag();
    const restartAt = Date.now();
    await engine.restart();
    const downMs = Date.now() - haltedAt;
    await sleep(2_000);
    await load.stop();

    const duringAnswers = load.answers.filter((a) => a.at >= haltedAt && a.at < restartAt);
    const statuses = Object.entries(
      load.answers.reduce<Record<string, number>>((m, a) => ((m[a.status] = (m[a.status] ?? 0) + 1), m), {}),
    );
    console.log(
      `      store away ${downMs} ms; answers: ${statuses.map(([s, n]) => `${s}×${n}`).join(', ')}, ${duringAnswers.length} while away; raw lag ${lagDuring} → ${lagAtEnd}; health: ${during.body.status}, ${JSON.stringify(during.body.problems)}`,
    );

    expect(duringAnswers.length, 'requests answered while the store was away').to.be.greaterThan(20);
    expect(
      duringAnswers.filter((a) => a.status !== 200),
      'ingest keeps accepting: Kafka holds the events',
    ).to.deep.equal([]);
    expect(lagAtEnd, 'consumers commit nothing past the batch they could not write').to.be.greaterThan(0);
    expect(lagAtEnd).to.be.at.least(lagDuring);
    expect(metricsText).to.match(/^spoor_store_up 0$/m);
    expect(metricsText).to.match(/^spoor_consumer_lag\{[^}]*events\.raw[^}]*\} [1-9]/m);

    // Catch-up without a restart of Spoor; then the report is ok again and the set check holds.
    await spoor.drained();
    await waitFor(health, (h) => h.body.status === 'ok', 30_000, 'health ok after the store came back');
    expect(await metrics()).to.match(/^spoor_store_up 1$/m);
    await load.retryUnacked();
    await spoor.drained();
    const check = await setCheck(rig!.config, rig!.project.project_id, load.acked);
    console.log(
      `      acknowledged ${check.acked}, stored ${check.stored}, lost ${check.lost.length}, duplicates ${check.duplicates}, enriched ${check.enriched}, counted in sessions ${check.sessionEvents}`,
    );
    expect(check.lost, 'acknowledged events lost').to.deep.equal([]);
    expect(check.duplicates, 'raw duplicates').to.equal(0);
    expect(check.stored).to.equal(check.acked);
    expect(check.enriched).to.equal(check.acked);
    expect(check.enrichedDuplicates).to.equal(0);
    expect(check.sessionEvents, 'each event counted in one session, once').to.equal(check.acked);
  });
});
