/**
 * The in-process hand-off between pipeline stages that run in one process (issue 14; DESIGN.md,
 * "Embedded mode keeps the front door free"). A consumer stage running here `provide`s a handler
 * for the topic it consumes; a producer stage in the same process awaits that handler and calls
 * it, inside the batch it is handling, instead of publishing. The batch's offset therefore
 * commits only after every stage stored its part: a crash replays it through all of them, each
 * idempotent. Nothing is serialised between the stages.
 */
export class LocalHandoff {
  private readonly slots = new Map<string, { handler: Promise<unknown>; provide: (h: unknown) => void }>();

  /** Registers the local consumer of `topic`. */
  provide<T>(topic: string, handler: (items: T[]) => Promise<void>): void {
    this.slot(topic).provide(handler);
  }

  /**
   * The local consumer of `topic`, once its service has started (services start one after the
   * other, and a producer may start before its consumer).
   */
  consumer<T>(topic: string): Promise<(items: T[]) => Promise<void>> {
    return this.slot(topic).handler as Promise<(items: T[]) => Promise<void>>;
  }

  private slot(topic: string) {
    let slot = this.slots.get(topic);
    if (!slot) {
      let provide!: (h: unknown) => void;
      const handler = new Promise<unknown>((resolve) => (provide = resolve));
      slot = { handler, provide };
      this.slots.set(topic, slot);
    }
    return slot;
  }
}
