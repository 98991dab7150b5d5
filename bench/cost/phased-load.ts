import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { AutocannonResult, LoadSpec } from '../ingest/load-runner.js';

export type PhaseName = 'warmup' | 'window' | 'probe';

export interface PhasedLoadSpec {
  load: Omit<LoadSpec, 'durationSec'>;
  phases: Array<{ name: PhaseName; durationSec: number }>;
}

/** What the generator prints: a phase started (no result) or ended (its result). */
export interface PhaseLine {
  phase: PhaseName;
  at: number;
  result?: AutocannonResult;
}

const GENERATOR = fileURLToPath(new URL('./phased-load-generator.js', import.meta.url));

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(err: Error): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined); // a phase nobody waits for must not be an unhandled rejection
  return { promise, resolve, reject };
}

/**
 * The load of one row, from a separate process (phased-load-generator.ts): `started(phase)`
 * resolves as the phase's load begins, `ended(phase)` with its autocannon result as it stops
 * (the next phase starting at once), `exited` once the generator is gone.
 */
export class PhasedLoad {
  readonly exited: Promise<void>;
  private readonly starts = new Map<PhaseName, Deferred<void>>();
  private readonly ends = new Map<PhaseName, Deferred<AutocannonResult>>();
  private readonly child: ChildProcess;

  constructor(spec: PhasedLoadSpec) {
    for (const { name } of spec.phases) {
      this.starts.set(name, deferred());
      this.ends.set(name, deferred());
    }
    const child = spawn(process.execPath, [GENERATOR, JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.child = child;
    createInterface({ input: child.stdout }).on('line', (text) => {
      const line = JSON.parse(text) as PhaseLine;
      if (line.result) this.ends.get(line.phase)?.resolve(line.result);
      else this.starts.get(line.phase)?.resolve();
    });
    this.exited = new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => {
        const failure = new Error(`the load generator exited with ${code}`);
        for (const d of [...this.starts.values(), ...this.ends.values()]) d.reject(failure); // no-op once resolved
        if (code === 0) resolve();
        else reject(failure);
      });
    });
    this.exited.catch(() => undefined);
  }

  /** Ends the load early (a row that failed); resolves once the generator is gone. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited.catch(() => undefined);
  }

  started(phase: PhaseName): Promise<void> {
    return this.starts.get(phase)?.promise ?? Promise.reject(new Error(`no ${phase} phase`));
  }

  ended(phase: PhaseName): Promise<AutocannonResult> {
    return this.ends.get(phase)?.promise ?? Promise.reject(new Error(`no ${phase} phase`));
  }
}
