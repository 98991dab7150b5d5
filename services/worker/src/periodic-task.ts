import type { Logger } from '@spoor/service-log';

export interface PeriodicTask {
  /** Runs the task now (tests), waiting for a pass already under way. */
  runNow(): Promise<void>;
  stop(): Promise<void>;
}

/** Runs `task` every `everyMs`, one pass at a time; a failing pass is logged and the next one runs as planned. */
export function everyInterval(name: string, everyMs: number, logger: Logger, task: () => Promise<void>): PeriodicTask {
  let running: Promise<void> | null = null;
  let stopped = false;
  const pass = () => {
    running ??= task()
      .catch((err) => logger.warn(`${name} failed`, { err }))
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => void (stopped || pass()), everyMs);
  timer.unref();
  return {
    runNow: pass,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
