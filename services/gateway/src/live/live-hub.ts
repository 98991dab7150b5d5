// The live view's fan-out (issue 18; docs/analytics.md, Live view): one ticker per project
// computes the snapshot once per tick and sends the same frame to every connected viewer, so
// the store's work grows with the projects being watched, not with the viewers. A ticker
// starts with its project's first viewer and stops when the last one leaves.
import type { Logger } from '@spoor/service-log';
import { LIVE_LIMITS, type LiveSnapshot, type ProjectRecord } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { commentFrame, eventFrame } from './event-stream.js';

/** A connected viewer: takes SSE frames as text. */
export interface LiveViewer {
  send(frame: string): void;
}

export interface LiveHubOptions {
  store: Store;
  clock: () => number;
  logger?: Logger;
  intervalMs?: number;
  heartbeatMs?: number;
}

export class LiveHub {
  private readonly tickers = new Map<string, ProjectTicker>();
  /** Snapshots computed since start: the cost model's one number (/metrics `live_snapshots`). */
  private computed = 0;

  constructor(private readonly opts: LiveHubOptions) {}

  /** Adds a viewer of `project`; returns its removal. The viewer gets the latest snapshot at once if there is one. */
  join(project: ProjectRecord, viewer: LiveViewer): () => void {
    let ticker = this.tickers.get(project.project_id);
    if (!ticker) {
      ticker = new ProjectTicker(project, this.opts, () => this.computed++);
      this.tickers.set(project.project_id, ticker);
      ticker.start();
    }
    ticker.add(viewer);
    const joined = ticker;
    return () => {
      if (joined.remove(viewer) === 0 && this.tickers.get(project.project_id) === joined) {
        joined.stop();
        this.tickers.delete(project.project_id);
      }
    };
  }

  stats(): Record<string, number> {
    let viewers = 0;
    for (const t of this.tickers.values()) viewers += t.size;
    return { live_snapshots: this.computed, live_viewers: viewers, live_projects: this.tickers.size };
  }

  stop(): void {
    for (const t of this.tickers.values()) t.stop();
    this.tickers.clear();
  }
}

class ProjectTicker {
  private readonly viewers = new Set<LiveViewer>();
  private latest: string | null = null;
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private lastSent = 0;
  private stopped = false;

  constructor(
    private readonly project: ProjectRecord,
    private readonly opts: LiveHubOptions,
    private readonly counted: () => void,
  ) {}

  get size(): number {
    return this.viewers.size;
  }

  add(viewer: LiveViewer): void {
    this.viewers.add(viewer);
    if (this.latest) viewer.send(this.latest);
  }

  remove(viewer: LiveViewer): number {
    this.viewers.delete(viewer);
    return this.viewers.size;
  }

  start(): void {
    const heartbeatMs = this.opts.heartbeatMs ?? LIVE_LIMITS.heartbeatMs;
    this.heartbeat = setInterval(() => {
      if (Date.now() - this.lastSent >= heartbeatMs) this.broadcast(commentFrame('keep-alive'));
    }, heartbeatMs);
    void this.tick();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    this.viewers.clear();
  }

  /** The next tick is scheduled after this one finished: a slow store never stacks queries. */
  private async tick(): Promise<void> {
    try {
      const snapshot = await this.compute();
      if (this.stopped) return;
      this.latest = eventFrame('snapshot', String(snapshot.at), JSON.stringify(snapshot));
      this.broadcast(this.latest);
    } catch (err) {
      // Viewers keep their last snapshot; the stream stays open and the next tick tries again.
      this.opts.logger?.warn('live snapshot failed', { err, project_id: this.project.project_id });
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), this.opts.intervalMs ?? LIVE_LIMITS.intervalMs);
  }

  private async compute(): Promise<LiveSnapshot> {
    this.counted();
    const at = this.opts.clock();
    const counts = await this.opts.store.live.snapshot(this.project.project_id, {
      since: at - LIVE_LIMITS.windowMs,
      topPages: LIVE_LIMITS.topPages,
      latest: LIVE_LIMITS.latestEvents,
    });
    return {
      origin: this.project.origin,
      project: this.project.project,
      at,
      window_ms: LIVE_LIMITS.windowMs,
      interval_ms: this.opts.intervalMs ?? LIVE_LIMITS.intervalMs,
      ...counts,
    };
  }

  private broadcast(frame: string): void {
    this.lastSent = Date.now();
    for (const viewer of this.viewers) viewer.send(frame);
  }
}
