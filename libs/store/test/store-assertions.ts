// Assertions the contract cases share.
import { expect } from 'chai';
import { StoreConflictError } from '../src/index.js';

/** Awaits `work` and asserts that it failed with StoreConflictError. */
export async function expectConflict(work: Promise<unknown>): Promise<void> {
  let caught: unknown;
  try {
    await work;
  } catch (err) {
    caught = err;
  }
  expect(caught).to.be.instanceOf(StoreConflictError);
}

/** Starts every create at once; asserts one won and the rest met StoreConflictError. Returns the winner's index. */
export async function expectOneWinner(creates: Array<() => Promise<void>>): Promise<number> {
  const results = await Promise.allSettled(creates.map((create) => create()));
  const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
  const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  expect(won).to.have.length(1);
  expect(lost).to.have.length(creates.length - 1);
  for (const reason of lost) expect(reason).to.be.instanceOf(StoreConflictError);
  return won[0]!;
}
