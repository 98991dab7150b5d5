import { expect } from 'chai';
import { MemoryKv } from '@spoor/kv';
import { kvDedupWindow, localDedupWindow, type DedupWindow } from '../src/dedup-window.js';

const windows: Array<[string, () => { window: DedupWindow; close(): Promise<void> }]> = [
  ['kv', () => { const kv = new MemoryKv(); return { window: kvDedupWindow(kv), close: () => kv.close() }; }],
  ['local', () => ({ window: localDedupWindow(100), close: async () => {} })],
];

for (const [name, open] of windows) {
  describe(`DedupWindow: ${name}`, () => {
    it('passes a new event, drops its repeat, and passes the same message redelivered', async () => {
      const { window, close } = open();
      expect(await window.claim([{ key: 'p:e1', position: 'raw/0/10' }, { key: 'p:e2', position: 'raw/0/20' }])).to.deep.equal([true, true]);
      // A client's retry: the same event id at another position.
      expect(await window.claim([{ key: 'p:e1', position: 'raw/0/30' }])).to.deep.equal([false]);
      // The batch replayed after a crash: the same positions go through again.
      expect(await window.claim([{ key: 'p:e1', position: 'raw/0/10' }, { key: 'p:e2', position: 'raw/0/20' }])).to.deep.equal([true, true]);
      await close();
    });
  });
}

describe('localDedupWindow', () => {
  it('keeps only the latest ids, so memory stays bounded under any load', async () => {
    const window = localDedupWindow(3);
    await window.claim(['a', 'b', 'c', 'd'].map((id, i) => ({ key: `p:${id}`, position: `raw/0/${i}` })));
    // 'a' fell out of the window: its repeat passes here (the store's key keeps it stored once).
    expect(await window.claim([{ key: 'p:a', position: 'raw/0/9' }, { key: 'p:d', position: 'raw/0/9' }])).to.deep.equal([true, false]);
  });
});
