import type { StartedEngine } from '../started-engine.js';
import type { ManagedProcess } from './managed-process.js';

/**
 * An engine a fault test owns alone and may take away and bring back (issue 16): `halt` stops
 * the process, `restart` starts it again on the same port and data dir, so clients keep the
 * address they were given. `stop` (from StartedEngine) ends it for good.
 */
export interface RestartableEngine extends StartedEngine {
  /** SIGKILL (default): a crash, nothing flushed. SIGTERM: a clean stop (grace as the runner's). */
  halt(signal?: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  /** Starts it again as before; resolves once it answers clients. */
  restart(): Promise<void>;
  readonly running: boolean;
}

/**
 * Wraps a runner's launch step: `launch` spawns the engine with a fixed port and data dir and
 * resolves once it answers (rejecting, after stopping it, when it does not).
 */
export async function restartable(url: string, launch: () => Promise<ManagedProcess>): Promise<RestartableEngine> {
  let proc: ManagedProcess | null = await launch();
  let stopped = false;
  return {
    url,
    get running() {
      return proc !== null;
    },
    async halt(signal = 'SIGKILL') {
      const current = proc;
      proc = null;
      if (current === null) return;
      if (signal === 'SIGKILL') {
        current.killNow();
        await current.exited;
      } else {
        await current.stop();
      }
    },
    async restart() {
      if (stopped) throw new Error('engine was stopped for good');
      if (proc !== null) return;
      proc = await launch();
    },
    async stop() {
      stopped = true;
      const current = proc;
      proc = null;
      await current?.stop();
    },
  };
}
