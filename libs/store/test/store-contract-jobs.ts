// Contract cases for jobs; registered by store.contract.test.ts inside each backend's suite.
import { expect } from 'chai';
import type { JobRecord } from '@spoor/schemas';
import type { Store } from '../src/index.js';
import { INJECTION, T0, job } from './store-fixtures.js';

export function jobCases(store: () => Store): void {
  describe('jobs', function () {
    it('gets a job, every field round-tripped, and keeps the newest record whatever the arrival order', async function () {
      const { jobs } = store();
      const queued = job({ job_id: 'job-1' });
      const running = {
        ...queued,
        status: 'running',
        started_at: T0 + 10,
        attempts: 1,
        worker: 'host-a:42',
        progress: { done: 0, total: null },
        updated_at: T0 + 10,
      } satisfies JobRecord;
      const done = {
        ...running,
        status: 'succeeded',
        finished_at: T0 + 90,
        progress: { done: 7, total: 7 },
        result: { sessions: 7, tags: ['buyer'], nested: { ok: true, n: null } },
        updated_at: T0 + 90,
      } satisfies JobRecord;
      await jobs.put(queued);
      expect(await jobs.get('job-1')).to.deep.equal(queued);
      await jobs.put(done);
      await jobs.put(running);
      expect(await jobs.get('job-1')).to.deep.equal(done);
      expect(await jobs.get('job-none')).to.equal(null);
    });

    it('lets the later write win on equal updated_at', async function () {
      const { jobs } = store();
      const a = job({ job_id: 'job-tie', status: 'running', updated_at: T0 + 5, worker: 'host-a:1' });
      const b = job({ job_id: 'job-tie', status: 'failed', updated_at: T0 + 5, error: 'boom', result: 'partial' });
      await jobs.put(a);
      await jobs.put(b);
      expect(await jobs.get('job-tie')).to.deep.equal(b);
      await jobs.put(a);
      expect(await jobs.get('job-tie')).to.deep.equal(a);
    });

    it("lists an account's jobs newest created first, limited, and only that account's", async function () {
      const { jobs } = store();
      const acct = 'acct-list';
      const made = [3, 1, 4, 2].map((n) => job({ job_id: `list-${n}`, account_id: acct, created_at: T0 + n * 1000 }));
      for (const j of made) await jobs.put(j);
      await jobs.put(job({ job_id: 'list-other', account_id: 'acct-list-other', created_at: T0 + 9000 }));
      // A later state of list-1 changes updated_at, not its place.
      const list1Done = { ...made[1]!, status: 'succeeded', updated_at: T0 + 99_000 } satisfies JobRecord;
      await jobs.put(list1Done);
      const ids = async (limit: number) => (await jobs.listByAccount(acct, limit)).map((j) => j.job_id);
      expect(await ids(10)).to.deep.equal(['list-4', 'list-3', 'list-2', 'list-1']);
      expect(await ids(2)).to.deep.equal(['list-4', 'list-3']);
      expect(await ids(0)).to.deep.equal([]);
      expect((await jobs.listByAccount(acct, 10))[3]).to.deep.equal(list1Done);
      expect(await jobs.listByAccount('acct-nobody', 10)).to.deep.equal([]);
    });

    it('stores hostile values verbatim', async function () {
      const j = job({
        job_id: INJECTION,
        account_id: INJECTION,
        project_id: INJECTION,
        error: INJECTION,
        request: { [INJECTION]: INJECTION },
        result: [INJECTION],
        worker: INJECTION,
      });
      await store().jobs.put(j);
      expect(await store().jobs.get(INJECTION)).to.deep.equal(j);
      expect(await store().jobs.listByAccount(INJECTION, 10)).to.deep.equal([j]);
    });
  });
}
