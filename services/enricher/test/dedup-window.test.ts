import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { MemoryKv, RedisKv, type Kv } from '@spoor/kv';
import { redisUrl, requireEngine } from '@spoor/testkit';
import { kvDedupWindow, localDedupWindow, type DedupWindow } from '../src/dedup-window.js';

/** The KV window on both KVs (Redis is what several enrichers share), and the local one. */
const windows: Array<[string, (ctx: Mocha.Context) => Promise<{ window: DedupWindow; close(): Promise<void> }>]> = [
  ['kv on memory', async () => kvWindow(new MemoryKv())],
  [
    'kv on redis',
    async (ctx) => {
      const url = await redisUrl();
      requireEngine(ctx, url, 'redis');
      return kvWindow(await RedisKv.connect(url, `test:${randomUUID().slice(0, 8)}:`));
    },
  ],
  ['local', async () => ({ window: localDedupWindow(100), close: async () => {} })],
];

function kvWindow(kv: Kv) {
  return { window: kvDedupWindow(kv), close: () => kv.close() };
}

for (const [name, open] of windows) {
  describe(`DedupWindow: ${name}`, function () {
    this.timeout(30_000);
    it('passes a new event, drops its repeat, and passes the same message redelivered', async function () {
      const { window, close } = await open(this);
      try {
        expect(
          await window.claim([
            { projectId: 'p', eventId: 'e1', position: 'raw/0/10' },
            { projectId: 'p', eventId: 'e2', position: 'raw/0/20' },
          ]),
        ).to.deep.equal([true, true]);
        // A client's retry: the same event id at another position.
        expect(await window.claim([{ projectId: 'p', eventId: 'e1', position: 'raw/0/30' }])).to.deep.equal([false]);
        // The batch replayed after a crash: the same positions go through again.
        expect(
          await window.claim([
            { projectId: 'p', eventId: 'e1', position: 'raw/0/10' },
            { projectId: 'p', eventId: 'e2', position: 'raw/0/20' },
          ]),
        ).to.deep.equal([true, true]);
      } finally {
        await close();
      }
    });
  });
}

describe('localDedupWindow', () => {
  it('keeps only the latest ids, so memory stays bounded under any load', async () => {
    const window = localDedupWindow(3);
    await window.claim(['a', 'b', 'c', 'd'].map((id, i) => ({ projectId: 'p', eventId: id, position: `raw/0/${i}` })));
    // 'a' fell out of the window: its repeat passes here (the store's key keeps it stored once).
    expect(
      await window.claim([
        { projectId: 'p', eventId: 'a', position: 'raw/0/9' },
        { projectId: 'p', eventId: 'd', position: 'raw/0/9' },
      ]),
    ).to.deep.equal([true, false]);
  });

  it('holds the same event id in two projects apart', async () => {
    const window = localDedupWindow(10);
    expect(
      await window.claim([
        { projectId: 'p', eventId: 'e', position: 'raw/0/1' },
        { projectId: 'q', eventId: 'e', position: 'raw/1/1' },
      ]),
    ).to.deep.equal([true, true]);
    expect(await window.claim([{ projectId: 'q', eventId: 'e', position: 'raw/1/2' }])).to.deep.equal([false]);
  });

  it('forgets the oldest id once full, however many times it went round', async () => {
    const window = localDedupWindow(4);
    const ids = Array.from({ length: 23 }, (_, i) => `e${i}`);
    for (const [i, id] of ids.entries())
      await window.claim([{ projectId: i % 2 ? 'p' : 'q', eventId: id, position: `raw/0/${i}` }]);
    // Newest first (a claim that passes takes a slot): the latest four are held, e18 is not.
    const again = await window.claim(
      ['e22', 'e21', 'e20', 'e19', 'e18'].map((id) => ({
        projectId: Number(id.slice(1)) % 2 ? 'p' : 'q',
        eventId: id,
        position: 'raw/0/99',
      })),
    );
    expect(again).to.deep.equal([false, false, false, false, true]);
  });
});
