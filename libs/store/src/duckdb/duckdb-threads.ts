import type { DuckDbConnection } from './duckdb-connection.js';

/** Runs `fn` on a wide engine (DuckDbThreads.during). */
export type Wide = <T>(fn: () => Promise<T>) => Promise<T>;

/** Calls `narrow` once the engine has been idle long enough; returns what cancels that. */
export type Linger = (narrow: () => void) => () => void;

/** Narrows `ms` after the last scan ended (a timer that keeps no process alive). */
const lingerFor =
  (ms: number): Linger =>
  (narrow) => {
    const timer = setTimeout(narrow, ms);
    timer.unref();
    return () => clearTimeout(timer);
  };

/**
 * How long the engine stays wide after a scan: jobs often come in a row (a digest's aggregation,
 * series and transitions), and each widening starts a fresh worker thread whose first scan is
 * slower (~10 ms on a 1 M-event aggregation here).
 */
export const DEFAULT_LINGER_MS = 2_000;

/**
 * DuckDB's worker threads, an instance-wide setting, at two sizes (issue 15; docs/performance.md, Read):
 * - `narrow` (default one) for the API's point reads and the pipeline's writes. With two threads
 *   each small query cost ~0.45 ms more CPU (DuckDB's idle worker woke and spun), and the
 *   pipeline stored ~12 % fewer events per second on two cores (docs/performance.md, Ingest).
 * - `wide` (every core) while a scan of many rows runs: an analytics job or a rollup refresh, a
 *   funnel, retention, an export, an erasure or expiry, the migrations. On one thread the
 *   aggregation at 1 M events took 1.5× as long.
 *
 * `during` widens the engine before its call runs and narrows it once no such call has run for
 * the linger. Settings go through a connection of their own; only the latest wanted size is
 * applied, so the last one always matches the count. A failed setting changes only the speed and
 * is not retried until the size is wanted again. Results never depend on the size. The
 * engine must have been opened `narrow`.
 */
export class DuckDbThreads {
  private running = 0;
  private applied: number;
  private wanted: number;
  private applying: Promise<void> | null = null;
  private cancelNarrowing: (() => void) | null = null;

  constructor(
    private readonly control: DuckDbConnection,
    readonly narrow: number,
    readonly wide: number,
    private readonly linger: Linger = lingerFor(DEFAULT_LINGER_MS),
  ) {
    this.applied = this.wanted = narrow;
  }

  readonly during: Wide = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (this.wide <= this.narrow) return fn();
    if (this.running++ === 0) {
      this.cancelNarrowing?.();
      this.cancelNarrowing = null;
      await this.want(this.wide);
    }
    try {
      return await fn();
    } finally {
      if (--this.running === 0) {
        this.cancelNarrowing = this.linger(() => {
          this.cancelNarrowing = null;
          void this.want(this.narrow);
        });
      }
    }
  };

  /** The engine's thread count now, as DuckDB reports it. */
  async current(): Promise<number> {
    const [row] = await this.control.all("SELECT current_setting('threads') AS n");
    return Number(row?.n);
  }

  /** Narrows without waiting for the linger, unless a scan runs (after the migrations at start). */
  async narrowNow(): Promise<void> {
    if (this.running > 0) return;
    this.cancelNarrowing?.();
    this.cancelNarrowing = null;
    await this.want(this.narrow);
  }

  /** Resolves once the size last wanted is applied (or failed to be). */
  async settled(): Promise<void> {
    while (this.applying) await this.applying;
  }

  async close(): Promise<void> {
    this.cancelNarrowing?.();
    this.cancelNarrowing = null;
    await this.settled();
    await this.control.close();
  }

  private want(n: number): Promise<void> {
    this.wanted = n;
    this.applying ??= this.apply().finally(() => {
      this.applying = null;
    });
    return this.applying;
  }

  private async apply(): Promise<void> {
    try {
      while (this.applied !== this.wanted) {
        const n = this.wanted;
        // An integer of this process' own configuration, never input: SET takes no bound value.
        await this.control.run(`SET threads = ${Math.trunc(n)}`);
        this.applied = n;
      }
    } catch {
      this.applied = -1; // unknown: the next wanted size is set again
    }
  }
}
