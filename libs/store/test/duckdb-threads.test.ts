// DuckDB runs on one thread for point reads and writes, on more while a scan runs (issue 15).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { makeTempDir } from '@spoor/testkit';
import { expect } from 'chai';
import { openStore, type Store } from '../src/index.js';
import { DuckDbConnection } from '../src/duckdb/duckdb-connection.js';
import { DuckDbThreads } from '../src/duckdb/duckdb-threads.js';
import type { DuckDbStore } from '../src/duckdb/duckdb-store.js';
import { T0, enriched, project, raw } from './store-fixtures.js';

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('DuckDB threads', function () {
  this.timeout(60_000);

  describe('DuckDbThreads', function () {
    let instance: DuckDBInstance;
    let threads: DuckDbThreads;
    let query: DuckDbConnection;
    /** Narrowings the linger holds, run by the test when it lets the time pass. */
    let held: Array<() => void>;
    const pass = async () => {
      for (const narrow of held.splice(0)) narrow();
      await threads.settled();
    };

    beforeEach(async function () {
      held = [];
      instance = await DuckDBInstance.create(':memory:', { threads: '1' });
      const linger = (narrow: () => void) => {
        held.push(narrow);
        return () => (held = held.filter((n) => n !== narrow));
      };
      threads = new DuckDbThreads(new DuckDbConnection(await instance.connect()), 1, 3, linger);
      query = new DuckDbConnection(await instance.connect());
    });

    afterEach(async function () {
      await threads.close();
      await query.close();
      instance.closeSync();
    });

    const seen = async () => Number((await query.all("SELECT current_setting('threads') AS n"))[0]?.n);

    it('widens the engine during a call and narrows it once the linger has passed', async function () {
      expect(await seen()).to.equal(1);
      expect(await threads.during(seen)).to.equal(3);
      expect(await seen()).to.equal(3);
      await pass();
      expect(await seen()).to.equal(1);
    });

    it('keeps the engine wide for a call that comes within the linger', async function () {
      await threads.during(seen);
      expect(held).to.have.length(1);
      expect(await threads.during(seen)).to.equal(3);
      expect(held).to.have.length(1);
      await pass();
      expect(await seen()).to.equal(1);
    });

    it('stays wide until the last of overlapping calls ends, even when one fails', async function () {
      const first = gate();
      const second = gate();
      const started = gate();
      const a = threads.during(async () => {
        started.open();
        await first.opened;
        return seen();
      });
      const b = threads.during(async () => {
        await second.opened;
        throw new Error('scan failed');
      });
      // The first call runs once the engine is wide; the second fails while the first still runs.
      await started.opened;
      second.open();
      await b.then(
        () => expect.fail('the failure must reach the caller'),
        (err: Error) => expect(err.message).to.equal('scan failed'),
      );
      expect(held).to.have.length(0);
      expect(await seen()).to.equal(3);
      first.open();
      expect(await a).to.equal(3);
      await pass();
      expect(await seen()).to.equal(1);
    });

    it('widens again a call that comes while the engine is narrowing', async function () {
      await threads.during(seen);
      for (const narrow of held.splice(0)) narrow();
      expect(await threads.during(seen)).to.equal(3);
      await pass();
      expect(await seen()).to.equal(1);
    });

    it('narrows at once when asked, but not under a running call', async function () {
      await threads.during(seen);
      await threads.narrowNow();
      expect(await seen()).to.equal(1);
      expect(held).to.have.length(0);
      const first = gate();
      const started = gate();
      const running = threads.during(() => {
        started.open();
        return first.opened;
      });
      await started.opened;
      await threads.narrowNow();
      expect(await seen()).to.equal(3);
      first.open();
      await running;
      await pass();
      expect(await seen()).to.equal(1);
    });

    it('changes nothing when the wide size is no wider', async function () {
      const same = new DuckDbThreads(new DuckDbConnection(await instance.connect()), 1, 1);
      try {
        expect(await same.during(seen)).to.equal(1);
      } finally {
        await same.close();
      }
    });
  });

  describe('the embedded store', function () {
    let dir: string;
    let store: Store;

    before(async function () {
      dir = await makeTempDir('spoor-threads-');
      store = await openStore({ kind: 'duckdb', path: join(dir, 'spoor.duckdb') });
      await store.migrate();
      await store.projects.create(project({ project_id: 'p-a' }));
      const pairs = Array.from({ length: 2000 }, (_, i) => {
        const over = { event_id: `e${i}`, session_id: `s${i % 100}`, timestamp: T0 + i };
        return { raw: raw(over), enriched: enriched(over) };
      });
      await store.events.insertEvents(pairs);
    });

    after(async function () {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('opens on one thread by default and runs a job on every core', async function () {
      const threads = (store as DuckDbStore).threads;
      expect(threads.narrow).to.equal(1);
      expect(await threads.current()).to.equal(1);
      const t = await store.analytics.transitions('p-a', { start: T0, end: T0 + 10 * 3_600_000 });
      expect(t.sessions).to.equal(100);
      // Still wide within the linger, on a machine with more than one core.
      expect(await threads.current()).to.equal(threads.wide);
    });
  });
});
