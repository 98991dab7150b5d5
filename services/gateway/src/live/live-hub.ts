// The live view's fan-out (issue 18; docs/analytics.md, Live view): one ticker per project
// computes the snapshot once per tick and sends the same frame to every connected viewer, so
// the store's work grows with the projects being watched, not with the viewers. A ticker
// starts with its project's first viewer and stops when the last one leaves.
// Before each snapshot the ticker asks again whether each credential watching it may still see
// the project (issue 42, item 3; live-access.ts), once per credential and project however many
// streams share them, and ends the streams of those that may not with an `end` event.
import type { Logger } from '@spoor/service-log';
import { LIVE_LIMITS, type LiveSnapshot, type ProjectRecord } from '@spoor/schemas';
import type { Store } from '@spoor/store';
import { commentFrame, eventFrame } from './event-stream.js';
import type { AccessEnded, LiveAccessCheck, LiveGrant } from './live-access.js';
import type { LiveStreamCaps } from './live-stream-caps.js';

/** A connected viewer: takes SSE frames, and is ended with a last one. */
export interface LiveViewer {
  send(frame: Buffer): void;
  end(frame: Buffer): void;
}

export interface LiveHubOptions {
  store: Store;
  clock: () => number;
  /** Is a stream's credential still allowed its project; asked before each snapshot. */
  check: LiveAccessCheck;
  caps: LiveStreamCaps;
  logger?: Logger;
  intervalMs?: number;
  heartbeatMs?: number;
}

const KEEP_ALIVE = commentFrame('keep-alive');
/**
 * Viewers written to in one turn of the event loop: 2,000 writes in one go held other requests
 * for tens of milliseconds (issue 42, item 4: /healthz max ≤ 50 ms with 2,000 streams open).
 */
const WRITE_SLICE = 200;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Counters {
  live_snapshots: number;
  live_ended_access: number;
}

export class LiveHub {
  private readonly tickers = new Map<string, ProjectTicker>();
  /** live_snapshots: the cost model's one number; live_ended_access: streams ended by a re-check. */
  private readonly counters: Counters = { live_snapshots: 0, live_ended_access: 0 };

  constructor(private readonly opts: LiveHubOptions) {}

  /** A slot for one more stream of `accountId` (its release), or the 429 past the caps. */
  admit(accountId: string): () => void {
    return this.opts.caps.admit(accountId);
  }

  /**
   * Adds a viewer of `project`; returns its seat, for leave(). The viewer gets the latest snapshot
   * at once if there is one. A seat rather than a closure: an open stream keeps one reference here.
   */
  join(project: ProjectRecord, grant: LiveGrant, viewer: LiveViewer): LiveSeat {
    let ticker = this.tickers.get(project.project_id);
    if (!ticker) {
      ticker = new ProjectTicker(project, this.opts, this.counters);
      this.tickers.set(project.project_id, ticker);
      ticker.start();
    }
    return ticker.add(grant, viewer);
  }

  /** Removes a viewer (its stream ended); the project's ticker stops with its last viewer. */
  leave(seat: LiveSeat, viewer: LiveViewer): void {
    const { ticker } = seat;
    if (ticker.remove(seat, viewer) === 0 && this.tickers.get(ticker.projectId) === ticker) {
      ticker.stop();
      this.tickers.delete(ticker.projectId);
    }
  }

  stats(): Record<string, number> {
    let viewers = 0;
    for (const t of this.tickers.values()) viewers += t.size;
    return { ...this.counters, live_viewers: viewers, live_projects: this.tickers.size, ...this.opts.caps.stats() };
  }

  stop(): void {
    for (const t of this.tickers.values()) t.stop();
    this.tickers.clear();
  }
}

/** Where a viewer sits in the hub, from join() to leave(): its group. */
export type LiveSeat = GrantGroup;

/** The viewers that opened their streams with one credential on one project: one check for all. */
interface GrantGroup {
  readonly ticker: ProjectTicker;
  readonly grant: LiveGrant;
  readonly viewers: Set<LiveViewer>;
}

class ProjectTicker {
  private readonly groups = new Map<string, GrantGroup>();
  private viewers = 0;
  private latest: Buffer | null = null;
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private lastSent = 0;
  private stopped = false;

  constructor(
    private readonly project: ProjectRecord,
    private readonly opts: LiveHubOptions,
    private readonly counters: Counters,
  ) {}

  get size(): number {
    return this.viewers;
  }

  get projectId(): string {
    return this.project.project_id;
  }

  /** Streams of one credential share its group: the first one's grant, one check, one key string. */
  add(grant: LiveGrant, viewer: LiveViewer): GrantGroup {
    let group = this.groups.get(grant.key);
    if (!group) this.groups.set(grant.key, (group = { ticker: this, grant, viewers: new Set() }));
    group.viewers.add(viewer);
    this.viewers++;
    if (this.latest) viewer.send(this.latest);
    return group;
  }

  /** The viewers left; a viewer whose group a re-check ended is already gone. */
  remove(group: GrantGroup, viewer: LiveViewer): number {
    if (group.viewers.delete(viewer)) {
      this.viewers--;
      if (group.viewers.size === 0 && this.groups.get(group.grant.key) === group) this.groups.delete(group.grant.key);
    }
    return this.viewers;
  }

  start(): void {
    const heartbeatMs = this.opts.heartbeatMs ?? LIVE_LIMITS.heartbeatMs;
    this.heartbeat = setInterval(() => {
      if (Date.now() - this.lastSent >= heartbeatMs) void this.broadcast(KEEP_ALIVE);
    }, heartbeatMs);
    void this.tick();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    for (const group of this.groups.values()) group.viewers.clear();
    this.groups.clear();
    this.viewers = 0;
  }

  /**
   * Access is checked while the snapshot is computed, and the snapshot goes only to the viewers
   * still allowed. The next tick is scheduled after this one finished: a slow store never stacks queries.
   */
  private async tick(): Promise<void> {
    const [snapshot] = await Promise.allSettled([this.compute(), this.recheck()]);
    if (this.stopped) return;
    if (snapshot.status === 'fulfilled') {
      this.latest = eventFrame('snapshot', String(snapshot.value.at), JSON.stringify(snapshot.value));
      await this.broadcast(this.latest);
    } else {
      // Viewers keep their last snapshot; the stream stays open and the next tick tries again.
      this.opts.logger?.warn('live snapshot failed', { err: snapshot.reason, project_id: this.project.project_id });
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), this.opts.intervalMs ?? LIVE_LIMITS.intervalMs);
  }

  /** Ends the groups whose credential may no longer see the project; a check that fails (the store away) keeps them. */
  private async recheck(): Promise<void> {
    await Promise.all(
      [...this.groups.values()].map(async (group) => {
        let ended: AccessEnded | null;
        try {
          ended = await this.opts.check(group.grant);
        } catch (err) {
          this.opts.logger?.warn('live access check failed', { err, project_id: this.project.project_id });
          return;
        }
        // A group that emptied and formed again meanwhile was checked by its new stream's request.
        if (ended && this.groups.get(group.grant.key) === group) this.endGroup(group, ended);
      }),
    );
  }

  private endGroup(group: GrantGroup, ended: AccessEnded): void {
    this.groups.delete(group.grant.key);
    this.viewers -= group.viewers.size;
    this.counters.live_ended_access += group.viewers.size;
    const frame = eventFrame('end', null, JSON.stringify(ended));
    const viewers = [...group.viewers];
    group.viewers.clear();
    for (const viewer of viewers) viewer.end(frame);
  }

  private async compute(): Promise<LiveSnapshot> {
    this.counters.live_snapshots++;
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

  /** The same bytes to every viewer, WRITE_SLICE of them per turn of the event loop. */
  private async broadcast(frame: Buffer): Promise<void> {
    this.lastSent = Date.now();
    let written = 0;
    for (const group of this.groups.values()) {
      for (const viewer of group.viewers) {
        viewer.send(frame);
        if (++written % WRITE_SLICE === 0) await nextTurn();
      }
    }
  }
}
