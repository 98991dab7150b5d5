// ClickHouse's rollups are rebuilt under a new generation each time; the superseded ones are
// deleted by a later refresh (clickhouse/rollups.ts). Checked against the engine: after three
// builds of one hour only the two newest generations are left, and the figures stay right.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { clickhouseUrl, requireEngine } from '@spoor/testkit';
import { openStore, type Store } from '../src/index.js';
import { ClickHouseConnection } from '../src/clickhouse/clickhouse-connection.js';
import { refreshRollups } from '../src/clickhouse/rollups.js';
import { T0, enriched } from './store-fixtures.js';

const P = 'p-generations';
const H = 3_600_000;

describe('ClickHouse rollup generations', function () {
  this.timeout(120_000);
  let store: Store;
  let ch: ClickHouseConnection;

  before(async function () {
    const url = await clickhouseUrl();
    requireEngine(this, url, 'clickhouse');
    const database = `spoor_gen_${randomBytes(6).toString('hex')}`;
    store = await openStore({ kind: 'clickhouse', url: url!, database });
    await store.migrate();
    ch = ClickHouseConnection.create({ url: url!, database });
  });

  after(async function () {
    await store?.close();
    await ch?.command(`DROP DATABASE IF EXISTS ${ch.database}`);
    await ch?.close();
  });

  const ev = (id: string, at: number) =>
    enriched({ event_id: id, project_id: P, session_id: 's', action: 'pageview', timestamp: at });
  const generations = async (hour: number) =>
    (
      await ch.rows(
        `SELECT count(DISTINCT gen) AS n FROM ${ch.table('rollup_events')} WHERE project_id = {p:String} AND hour = {h:Int64}`,
        { p: P, h: hour },
      )
    )[0]!.n;

  it('keeps the newest generations of an hour built three times, and counts each event once', async function () {
    const w = { start: T0, end: T0 + 2 * H };
    await store.events.insertEnriched([ev('g1', T0 + 1000), ev('g2', T0 + H + 1000)]);
    expect((await store.analytics.aggregate(P, w, 10)).events).to.equal(2);
    for (const [i, id] of ['g3', 'g4'].entries()) {
      await store.events.insertEnriched([ev(id, T0 + 2000 + i)]);
      await new Promise((r) => setTimeout(r, 20));
      // A purge delay of 0: every generation already superseded goes.
      await refreshRollups(ch, P, 0);
    }
    expect(Number(await generations(T0 / H))).to.equal(2);
    expect(Number(await generations(T0 / H + 1))).to.equal(1);
    const a = await store.analytics.aggregate(P, w, 10);
    expect(a.events).to.equal(4);
    expect(a.actions).to.deep.equal([{ name: 'pageview', count: 4 }]);
    expect((await store.analytics.transitions(P, w)).cells).to.deep.equal([
      { from: '$start', to: 'pageview', count: 1 },
      { from: 'pageview', to: '$end', count: 1 },
      { from: 'pageview', to: 'pageview', count: 3 },
    ]);
  });
});
