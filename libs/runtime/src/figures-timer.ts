// When the pipeline thread sends its services' figures (stats, drops) to the HTTP thread. It
// used to look every 100 ms whatever happened: ten wake-ups a second of an idle thread, a third
// of an idle process' CPU (issue 41). Now a handled batch asks for a look within `fastMs`; while
// looks find changes they go on every `fastMs`; once one finds none, the next is `slowMs` away
// (figures that change outside a batch, such as a periodic task's, are seen within that).

export interface TimerFunctions {
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
  now: () => number;
}

const realTimers: TimerFunctions = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  now: () => performance.now(),
};

export class FiguresTimer {
  private handle: unknown = null;
  /** When the pending look runs (timers' clock); Infinity when none is pending. */
  private due = Infinity;
  private stopped = false;

  /** `look` sends the figures if they changed and says whether they did. */
  constructor(
    private readonly look: () => boolean,
    private readonly fastMs = 100,
    private readonly slowMs = 1_000,
    private readonly timers: TimerFunctions = realTimers,
  ) {}

  /** The first look now; later ones as described above. */
  start(): void {
    this.stopped = false;
    this.tick();
  }

  /** Something changed (a batch was handled): a look within `fastMs`, sooner if one is due sooner. */
  nudge(): void {
    this.schedule(this.fastMs);
  }

  /** No more looks; the caller makes the last one itself. */
  stop(): void {
    this.stopped = true;
    if (this.handle !== null) this.timers.clearTimeout(this.handle);
    this.handle = null;
    this.due = Infinity;
  }

  private tick(): void {
    this.handle = null;
    this.due = Infinity;
    const changed = this.look();
    this.schedule(changed ? this.fastMs : this.slowMs);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    const at = this.timers.now() + ms;
    if (at >= this.due) return;
    if (this.handle !== null) this.timers.clearTimeout(this.handle);
    this.due = at;
    this.handle = this.timers.setTimeout(() => this.tick(), ms);
  }
}
