import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ProcessSpec {
  /** Used in messages: "kafka", "chdb", "redis". */
  name: string;
  command: string;
  args: string[];
  /** stdout and stderr both go here, written by the child itself. */
  logFile: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** 'pipe' hands the child a stdin that reaches EOF when this process dies. */
  stdin?: 'ignore' | 'pipe';
  /** How long SIGTERM gets before SIGKILL. */
  stopGraceMs?: number;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

// setpriv(1) from util-linux sets PR_SET_PDEATHSIG and then execs the engine in place (same
// pid), so the kernel kills the engine even when this process dies by SIGKILL or OOM and
// none of the hooks below run.
const SETPRIV = '/usr/bin/setpriv';
const usePdeathsig = process.platform === 'linux' && existsSync(SETPRIV);

/** The command line that runs `command` so it dies with this process (see SETPRIV). */
export function tiedToThisProcess(command: string, args: string[]): [string, string[]] {
  return usePdeathsig ? [SETPRIV, ['--pdeathsig', 'KILL', '--', command, ...args]] : [command, args];
}

const live = new Set<ManagedProcess>();
let hooksInstalled = false;

function killAllNow(): void {
  for (const proc of live) proc.killNow();
}

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  // 'exit' listeners must be synchronous, so SIGKILL is the only option left there.
  process.on('exit', killAllNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      // Another listener (a CLI, mocha) owns the shutdown and will call stopAllEngines;
      // the 'exit' hook still catches whatever it leaves. Alone, restore the default.
      if (process.listenerCount(signal) > 1) return;
      killAllNow();
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/**
 * A long-running engine process owned by this test process: logs to a file, never keeps
 * the event loop alive on its own, is stopped with SIGTERM then SIGKILL, and is killed
 * when this process exits however it exits.
 */
export class ManagedProcess {
  readonly exited: Promise<ExitStatus>;
  private status: ExitStatus | undefined;

  private constructor(
    readonly spec: ProcessSpec,
    private readonly child: ChildProcess,
  ) {
    this.exited = new Promise<ExitStatus>((resolve) => {
      const settle = (status: ExitStatus): void => {
        if (this.status !== undefined) return;
        this.status = status;
        live.delete(this);
        resolve(status);
      };
      child.once('exit', (code, signal) => settle({ code, signal }));
      child.once('error', (error) => settle({ code: null, signal: null, error }));
    });
  }

  static start(spec: ProcessSpec): ManagedProcess {
    installExitHooks();
    const log = openSync(spec.logFile, 'a');
    const [command, args] = tiedToThisProcess(spec.command, spec.args);
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        cwd: spec.cwd,
        env: spec.env ?? process.env,
        stdio: [spec.stdin ?? 'ignore', log, log],
      });
    } finally {
      closeSync(log); // the child holds its own descriptor
    }
    const proc = new ManagedProcess(spec, child);
    live.add(proc);
    // Engines must not keep a test run alive: the 'exit' hook reaps them instead.
    child.unref();
    const stdin = child.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null;
    stdin?.on('error', () => undefined); // EPIPE once the child is gone
    stdin?.unref?.();
    return proc;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Why the process is gone, or null while it runs. */
  exitReason(): string | null {
    const status = this.status;
    if (status === undefined) return null;
    if (status.error) return `${this.spec.name} could not be spawned: ${status.error.message}`;
    return `${this.spec.name} exited early (${status.signal ?? `code ${status.code}`})`;
  }

  async stop(): Promise<void> {
    if (this.status !== undefined) return;
    this.child.ref(); // hold the event loop until the exit is seen, or the process quits first
    this.child.kill('SIGTERM');
    // Unref'd timers: a pending grace period must not hold the test process open.
    const graceful = await Promise.race([
      this.exited.then(() => true),
      sleep(this.spec.stopGraceMs ?? 10_000, false, { ref: false }),
    ]);
    if (!graceful) {
      this.killNow();
      await Promise.race([this.exited, sleep(5_000, undefined, { ref: false })]);
    }
  }

  killNow(): void {
    if (this.status === undefined) this.child.kill('SIGKILL');
  }

  async logTail(lines = 25): Promise<string> {
    const text = await readFile(this.spec.logFile, 'utf8').catch(() => '');
    return lastLines(text, lines);
  }

  /** An Error carrying `reason` and the end of the log, for the SKIPPED line or a throw. */
  async failure(reason: string): Promise<Error> {
    const tail = await this.logTail();
    return new Error(`${reason}\n--- last lines of ${this.spec.logFile} ---\n${tail}`);
  }
}

export function lastLines(text: string, count: number): string {
  return text
    .trimEnd()
    .split('\n')
    .slice(-count)
    .map((line) => (line.length > 400 ? `${line.slice(0, 400)}…` : line))
    .join('\n');
}
