// The embedded stats rollup copies each session's dimensions (issue 44; duckdb/rollups.ts): a
// person's erasure takes those copies at once (it rebuilds their hours in its hold of the writer).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { makeTempDir } from '@spoor/testkit';
import { expect } from 'chai';
import { openStore } from '../src/index.js';
import { T0, enriched, session, statsSpec } from './store-fixtures.js';

const P = 'p-copies';

describe('DuckDB stats rollups', function () {
  let dir: string;
  beforeEach(async function () {
    dir = await makeTempDir('spoor-stat-rollups-');
  });
  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it("takes the copies of an erased person's session dimensions at once; another's stay", async function () {
    const path = join(dir, 'spoor.duckdb');
    const store = await openStore({ kind: 'duckdb', path });
    try {
      await store.migrate();
      const who = [
        { sid: 's-gone', ip: '203.0.113.7', city: 'Lyon' },
        { sid: 's-kept', ip: '198.51.100.9', city: 'Porto' },
      ];
      await store.events.insertEnriched(
        who.map((w, i) =>
          enriched({ event_id: `e${i}`, project_id: P, session_id: w.sid, ip: w.ip, timestamp: T0 + 60_000 }),
        ),
      );
      await store.sessions.upsert(
        who.map((w) =>
          session({
            session_id: w.sid,
            project_id: P,
            geo: { country: 'FR', region: null, city: w.city, latitude: null, longitude: null },
          }),
        ),
      );
      // A query over the hour builds its rollups, the sessions' cities copied in.
      const cities = await store.stats.query(
        P,
        statsSpec({ window: { start: T0, end: T0 + 3_600_000 }, metrics: ['visitors'], dimensions: ['city'] }),
      );
      expect(cities.rows.map((r) => r.dimensions[0])).to.deep.equal(['Lyon', 'Porto']);
      await store.erasure.eraseVisitor(P, { session_id: 's-gone' });
    } finally {
      await store.close();
    }
    const db = await DuckDBInstance.create(path);
    const c = await db.connect();
    try {
      const rows = (await c.runAndReadAll('SELECT sd_city FROM rollup_stat_sessions ORDER BY 1')).getRowObjectsJS();
      expect(rows.map((r) => r.sd_city)).to.deep.equal(['Porto']);
    } finally {
      c.closeSync();
      db.closeSync();
    }
  });
});
