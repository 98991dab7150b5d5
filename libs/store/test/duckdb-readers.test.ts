// The embedded store reads on several connections: an API read is not queued behind an
// analytics job's scan, and reads of one store run side by side; DuckDB runs on one thread but
// for jobs (duckdb-threads.ts; issue 15).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@spoor/testkit';
import { expect } from 'chai';
import { openStore, type Store } from '../src/index.js';
import type { DuckDbStore } from '../src/duckdb/duckdb-store.js';
import { T0, enriched, project, raw } from './store-fixtures.js';

describe('DuckDB readers', function () {
  this.timeout(60_000);
  let dir: string;
  let store: Store;

  before(async function () {
    dir = await makeTempDir('spoor-readers-');
    store = await openStore({ kind: 'duckdb', path: join(dir, 'spoor.duckdb') });
    await store.migrate();
    await store.projects.create(project({ project_id: 'p-a' }));
    // 40,000 events in 2,000 sessions: a transitions scan that takes a while.
    const actions = ['view', 'click', 'scroll', 'submit'];
    for (let b = 0; b < 4; b++) {
      const pairs = Array.from({ length: 10_000 }, (_, j) => {
        const i = b * 10_000 + j;
        const over = { event_id: `e${i}`, session_id: `s${i % 2000}`, timestamp: T0 + i, action: actions[i % 4]! };
        return { raw: raw(over), enriched: enriched(over) };
      });
      await store.events.insertEvents(pairs);
    }
  });

  after(async function () {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  // First in this file: the job below leaves the engine wide for the linger.
  it('opens on one thread by default and runs a job on every core', async function () {
    const threads = (store as DuckDbStore).threads;
    expect(threads.narrow).to.equal(1);
    expect(await threads.current()).to.equal(1);
    const t = await store.analytics.transitions('p-a', { start: T0, end: T0 + 100_000 });
    expect(t.sessions).to.equal(2000);
    // Still wide within the linger, on a machine with more than one core.
    expect(await threads.current()).to.equal(threads.wide);
  });

  it('answers a project lookup while a transitions job is still scanning', async function () {
    const order: string[] = [];
    const job = store.analytics.transitions('p-a', { start: T0, end: T0 + 100_000 }).then((t) => {
      order.push('job');
      return t;
    });
    const read = store.projects.get('p-a').then((p) => {
      order.push('read');
      return p;
    });
    const [transitions, found] = await Promise.all([job, read]);
    expect(found?.project_id).to.equal('p-a');
    expect(order).to.deep.equal(['read', 'job']);
    // The job's answer is whole: every event either starts its session or follows another.
    expect(transitions.sessions).to.equal(2000);
    expect(transitions.cells.filter((c) => c.to !== '$end').reduce((n, c) => n + c.count, 0)).to.equal(40_000);
  });
});
