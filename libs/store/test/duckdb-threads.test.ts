// DuckDB runs on one thread for point reads and writes, on more while a scan runs (issue 15).
// The store's own use of it (narrow when opened, wide for a job) is in duckdb-readers.test.ts.
import { DuckDBInstance } from '@duckdb/node-api';
import { expect } from 'chai';
import { DuckDbConnection } from '../src/duckdb/duckdb-connection.js';
import { DuckDbThreads } from '../src/duckdb/duckdb-threads.js';

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
      // An engine opened with two threads and told one is "wide": any setting would show as 1.
      const two = await DuckDBInstance.create(':memory:', { threads: '2' });
      const probe = new DuckDbConnection(await two.connect());
      const same = new DuckDbThreads(new DuckDbConnection(await two.connect()), 2, 1);
      try {
        const onTwo = async () => Number((await probe.all("SELECT current_setting('threads') AS n"))[0]?.n);
        expect(await same.during(onTwo)).to.equal(2);
        await same.narrowNow();
        expect(await onTwo()).to.equal(2);
      } finally {
        await same.close();
        await probe.close();
        two.closeSync();
      }
    });
  });
});
