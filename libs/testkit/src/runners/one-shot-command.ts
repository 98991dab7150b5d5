import { spawn } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { lastLines, tiedToThisProcess } from './managed-process.js';

export interface OneShotSpec {
  /** Names the step in errors: "Kafka storage format", "pip install chdb". */
  label: string;
  command: string;
  args: string[];
  /** Output is appended here, so a failure can quote it. */
  logFile: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
}

/**
 * Runs a setup step (mvn, pip, Kafka's StorageTool) to completion. Rejects with the step's
 * last output lines when it fails or overruns; an overrun step is SIGKILLed, not left behind.
 */
export async function runToCompletion(spec: OneShotSpec): Promise<void> {
  const log = openSync(spec.logFile, 'a');
  writeSync(log, `$ ${[spec.command, ...spec.args].join(' ')}\n`);
  let outcome: string | null;
  try {
    outcome = await new Promise<string | null>((resolve) => {
      const [command, args] = tiedToThisProcess(spec.command, spec.args);
      const child = spawn(command, args, {
        cwd: spec.cwd,
        env: spec.env ?? process.env,
        stdio: ['ignore', log, log],
      });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(`timed out after ${spec.timeoutMs} ms`);
      }, spec.timeoutMs);
      child.once('error', (error) => {
        clearTimeout(timer);
        resolve(error.message);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        resolve(code === 0 ? null : `exited with ${signal ?? `code ${code}`}`);
      });
    });
  } finally {
    closeSync(log);
  }
  if (outcome !== null) {
    const tail = lastLines(await readFile(spec.logFile, 'utf8').catch(() => ''), 25);
    throw new Error(`${spec.label} ${outcome}\n--- last lines of ${spec.logFile} ---\n${tail}`);
  }
}
