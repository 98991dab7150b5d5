// How many live streams this gateway process holds open, per account and in all (issue 42,
// item 4: one token opened 19,400 and the process' memory and latency went with them). Counted
// in memory, per process: a stream is a connection to this process, and what it costs is this
// process' memory and event loop (docs/security.md, Limits).
import { createError, type HttpError } from '@spoor/http';

export interface LiveStreamLimits {
  /** SPOOR_LIVE_STREAMS_PER_ACCOUNT */
  perAccount: number;
  /** SPOOR_LIVE_STREAMS_MAX */
  perProcess: number;
}

/** What an EventSource or `followLive` waits before trying again, sent as Retry-After. */
const RETRY_AFTER_SECONDS = 5;

export class LiveStreamCaps {
  private readonly byAccount = new Map<string, number>();
  private total = 0;
  private refused = 0;

  constructor(private readonly limits: LiveStreamLimits) {}

  /**
   * Takes a slot for a stream of `accountId`, or throws the catalogue's 429. Synchronous, so no
   * two requests can both take the last slot; the returned release runs once however often it is called.
   */
  admit(accountId: string): () => void {
    const held = this.byAccount.get(accountId) ?? 0;
    if (held >= this.limits.perAccount)
      throw this.refuse(
        `this account has ${held} open, the most an account may have on one server; close one to open another`,
      );
    if (this.total >= this.limits.perProcess)
      throw this.refuse(`this server holds ${this.total}, the most it may; retry later`);
    this.byAccount.set(accountId, held + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.byAccount.get(accountId) ?? 1) - 1;
      if (left > 0) this.byAccount.set(accountId, left);
      else this.byAccount.delete(accountId);
    };
  }

  stats(): Record<string, number> {
    return { live_streams: this.total, live_streams_refused: this.refused };
  }

  private refuse(why: string): HttpError {
    this.refused++;
    const err = createError('too_many_live_streams', why);
    err.headers['Retry-After'] = String(RETRY_AFTER_SECONDS);
    return err;
  }
}
