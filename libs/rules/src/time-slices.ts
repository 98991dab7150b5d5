// Cooperative time slicing for CPU-bound work on the HTTP thread (issue 42: a rules test held
// the event loop 2.3 s while /healthz waited). The work is a generator that pauses between
// small units (one rule evaluation, itself bounded by its step budget); it runs until a slice's
// time is used, then waits for its turn again.
//
// Turns are shared by every sliced task of the process: one slice per turn of the event loop,
// taken round robin, so that ten concurrent tests still let I/O in after each slice rather than
// after ten (every callback queued by setImmediate runs in the same check phase).

/** How long one slice may hold the event loop. */
export const SLICE_MS = 5;

const waiting: Array<() => void> = [];
let pumping = false;

function pump(): void {
  const next = waiting.shift();
  if (!next) {
    pumping = false;
    return;
  }
  setImmediate(pump); // the next slice runs on the next turn, after the loop has polled for I/O
  next();
}

/** Resolves on a later turn of the event loop, after the slices queued before this one. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!pumping) {
      pumping = true;
      setImmediate(pump);
    }
  });
}

/**
 * Runs `work` to its end, giving the event loop back whenever it has run `sliceMs` since it last
 * did; answers what the generator returns, and rejects with what it throws.
 */
export async function runSliced<T>(work: Generator<void, T>, sliceMs = SLICE_MS): Promise<T> {
  for (;;) {
    await nextTurn();
    const until = performance.now() + sliceMs;
    for (;;) {
      const step = work.next();
      if (step.done) return step.value;
      if (performance.now() >= until) break;
    }
  }
}
