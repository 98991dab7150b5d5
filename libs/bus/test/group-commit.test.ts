import { expect } from 'chai';
import { GroupCommit, PublishTimeoutError } from '../src/index.js';

// The deadline of a write (issue 16): a flush that hangs (a broker away) must not hold callers
// past their timeout, and what was still queued at its deadline is never written.
describe('GroupCommit deadlines', () => {
  it('rejects in-flight and queued writes at their deadline and drops the queued ones', async () => {
    const written: number[][] = [];
    let release: () => void = () => undefined;
    const writer = new GroupCommit<number>(async (items) => {
      written.push(items);
      if (items[0] === 1) await new Promise<void>((r) => (release = r)); // the first flush hangs
    });
    const first = writer.add([1], 50);
    const queued = writer.add([2], 50);
    const outcomes = await Promise.allSettled([first, queued]);
    expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'rejected']);
    expect((outcomes[1] as PromiseRejectedResult).reason).to.be.instanceOf(PublishTimeoutError);
    expect(writer.pending, 'the expired write left the queue').to.equal(0);
    release();
    await writer.add([3], 1_000);
    expect(written, 'the expired queued write was never flushed').to.deep.equal([[1], [3]]);
  });

  it('resolves writes that complete in time as before', async () => {
    const writer = new GroupCommit<number>(async () => undefined);
    await Promise.all([writer.add([1], 1_000), writer.add([2]), writer.add([3], 1_000)]);
  });
});
