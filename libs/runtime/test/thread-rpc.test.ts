import { expect } from 'chai';
import { MessageChannel } from 'node:worker_threads';
import { PublishTimeoutError } from '@spoor/bus';
import { StoreConflictError } from '@spoor/store';
import { RpcEndpoint, ThreadClosedError } from '../src/thread-rpc.js';

describe('RpcEndpoint (calls between the HTTP and pipeline threads)', () => {
  let here: RpcEndpoint;
  let there: RpcEndpoint;
  let channel: MessageChannel;
  beforeEach(() => {
    channel = new MessageChannel();
    here = new RpcEndpoint(channel.port1);
    there = new RpcEndpoint(channel.port2);
  });
  afterEach(() => {
    here.close();
    there.close();
    channel.port1.close();
  });

  it('calls methods at any depth with `this` bound, and answers clones', async () => {
    const events = {
      rows: [] as unknown[],
      insert(rows: unknown[]) {
        this.rows.push(...rows);
        return Promise.resolve(this.rows.length);
      },
    };
    there.expose('store', { events });
    const remote = here.remote<{ insert(rows: unknown[]): Promise<number> }>('store', ['events']);
    const row = { id: 1, at: new Date(0), key: 2n ** 100n };
    expect(await remote.insert([row])).to.equal(1);
    expect(events.rows[0]).to.deep.equal(row);
    expect(events.rows[0]).to.not.equal(row);
  });

  it('answers many rows of one shape as they were, whatever their values, and any other list as it was', async () => {
    const rows = Array.from({ length: 100 }, (_, i) => ({
      session_id: `s${i}`,
      at: i * 1_000,
      bot: i % 2 === 0,
      gone: i % 3 === 0 ? null : undefined,
      payload: { nested: [i, { deep: 'x' }] },
      when: new Date(i),
    }));
    const reordered = rows.map((r, i) => (i === 50 ? { at: r.at, session_id: r.session_id } : r));
    const extra = rows.map((r, i) => (i === 99 ? { ...r, more: 1 } : r));
    const fewer = rows.map((r, i) => (i === 10 ? { session_id: r.session_id, at: r.at } : r));
    const fewerFirst = rows.map((r, i) => (i === 0 ? { session_id: r.session_id } : r));
    const mixed = [...rows.slice(0, 40), 'text', new Date(5), [1, 2], null, ...rows.slice(40)];
    const empties = Array.from({ length: 64 }, () => ({}));
    const lists: Record<string, unknown[]> = { rows, reordered, extra, fewer, fewerFirst, mixed, empties, none: [] };
    there.expose('lists', Object.fromEntries(Object.entries(lists).map(([k, v]) => [k, () => Promise.resolve(v)])));
    const remote = here.remote<Record<string, () => Promise<unknown[]>>>('lists');
    // How each answer crossed: only the list of rows of one shape goes as columns.
    const crossed: string[] = [];
    channel.port1.on('message', (m: { t: string }) => crossed.push(m.t));
    for (const [name, sent] of Object.entries(lists)) {
      const got = await remote[name]!();
      expect(crossed.pop(), name).to.equal(name === 'rows' ? 'rows' : 'ok');
      expect(got, name).to.deep.equal(sent);
      expect(
        got.map((r) => (r && typeof r === 'object' ? Object.keys(r) : r)),
        name,
      ).to.deep.equal(sent.map((r) => (r && typeof r === 'object' ? Object.keys(r) : r)));
    }
  });

  it('is not a promise: awaiting a stand-in calls nothing', async () => {
    const remote = here.remote<object>('store', ['events']);
    expect(await remote).to.equal(remote);
  });

  it('rebuilds the error classes callers test, with their message and fields; others keep name and message', async () => {
    there.expose('x', {
      conflict: () => Promise.reject(new StoreConflictError('taken')),
      late: () => Promise.reject(new PublishTimeoutError(250)),
      odd: () => {
        throw new RangeError('out');
      },
    });
    const x = here.remote<{ conflict(): Promise<void>; late(): Promise<void>; odd(): Promise<void> }>('x');
    const conflict = await x.conflict().catch((e: unknown) => e);
    expect(conflict).to.be.instanceOf(StoreConflictError).and.include({ message: 'taken', name: 'StoreConflictError' });
    const late = await x.late().catch((e: unknown) => e);
    expect(late).to.be.instanceOf(PublishTimeoutError).and.include({ timeoutMs: 250 });
    expect((late as Error).message).to.equal(new PublishTimeoutError(250).message);
    const odd = await x.odd().catch((e: unknown) => e);
    expect(odd).to.be.instanceOf(Error).and.include({ name: 'RangeError', message: 'out' });
  });

  it('answers an unknown target or method, and an answer that cannot cross, with an error instead of silence', async () => {
    there.expose('x', { fn: async () => () => 1 });
    expect(await here.call('nope', ['m'], []).catch((e: Error) => e.message)).to.match(/nothing exposed as nope/);
    expect(await here.call('x', ['missing'], []).catch((e: Error) => e.message)).to.match(
      /x\.missing is not a function/,
    );
    expect(await here.call('x', ['fn'], []).catch((e: Error) => e.name)).to.equal('DataCloneError');
  });

  it('fails calls still waiting, and later ones, once closed', async () => {
    there.expose('x', { never: () => new Promise(() => {}) });
    const waiting = here.call('x', ['never'], []).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 20));
    here.close();
    expect(await waiting).to.be.instanceOf(ThreadClosedError);
    expect(await here.call('x', ['never'], []).catch((e: unknown) => e)).to.be.instanceOf(ThreadClosedError);
  });

  it('carries one-way notes', async () => {
    const got = new Promise((resolve) => here.onNote('figures', resolve));
    there.note('figures', { enricher: { stats: { enriched: 3 } } });
    expect(await got).to.deep.equal({ enricher: { stats: { enriched: 3 } } });
  });
});
