import { expect } from 'chai';
import { FiguresTimer, type TimerFunctions } from '../src/index.js';

/** Timers on a hand-moved clock: `advance` runs what falls due, in order. */
class ManualTimers implements TimerFunctions {
  private at = 0;
  private nextId = 1;
  private readonly pending = new Map<number, { due: number; fn: () => void }>();

  now = () => this.at;
  setTimeout = (fn: () => void, ms: number) => {
    const id = this.nextId++;
    this.pending.set(id, { due: this.at + ms, fn });
    return id;
  };
  clearTimeout = (handle: unknown) => void this.pending.delete(handle as number);

  get scheduled(): number {
    return this.pending.size;
  }

  advance(ms: number): void {
    const end = this.at + ms;
    for (;;) {
      const next = [...this.pending].sort((a, b) => a[1].due - b[1].due)[0];
      if (!next || next[1].due > end) break;
      this.pending.delete(next[0]);
      this.at = next[1].due;
      next[1].fn();
    }
    this.at = end;
  }
}

describe('FiguresTimer: when the pipeline thread looks at its figures (issue 41, idle CPU)', () => {
  const setup = (changes: () => boolean) => {
    const timers = new ManualTimers();
    const looks: number[] = [];
    const timer = new FiguresTimer(
      () => {
        looks.push(timers.now());
        return changes();
      },
      100,
      1_000,
      timers,
    );
    return { timers, looks, timer };
  };

  it('looks once a second while nothing changes, not ten times', () => {
    const { timers, looks, timer } = setup(() => false);
    timer.start();
    timers.advance(10_000);
    expect(looks).to.deep.equal([0, 1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000, 8_000, 9_000, 10_000]);
  });

  it('looks within 100 ms of a handled batch, and every 100 ms while the figures keep changing', () => {
    let changing = false;
    const { timers, looks, timer } = setup(() => changing);
    timer.start();
    timers.advance(250);
    changing = true;
    timer.nudge();
    timers.advance(300);
    changing = false;
    timers.advance(2_200);
    // 0: start; 350: the nudge's look; 450, 550: still changing; 650: no change, so the next
    // looks are a second apart.
    expect(looks).to.deep.equal([0, 350, 450, 550, 650, 1_650, 2_650]);
  });

  it('a burst of nudges makes one look, and a nudge never postpones a look already due sooner', () => {
    const { timers, looks, timer } = setup(() => false);
    timer.start();
    timers.advance(950);
    for (let i = 0; i < 50; i++) timer.nudge();
    expect(timers.scheduled).to.equal(1);
    timers.advance(100);
    expect(looks).to.deep.equal([0, 1_000]);
  });

  it('stop() leaves nothing scheduled and later nudges schedule nothing', () => {
    const { timers, looks, timer } = setup(() => true);
    timer.start();
    timers.advance(250);
    timer.stop();
    timer.nudge();
    expect(timers.scheduled).to.equal(0);
    timers.advance(5_000);
    expect(looks).to.deep.equal([0, 100, 200]);
  });
});
