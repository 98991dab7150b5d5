/** An engine this process started (local runner or container) and must stop. */
export interface StartedEngine {
  /** What the public API hands out: a broker list or a URL. */
  readonly url: string;
  stop(): Promise<void>;
}
