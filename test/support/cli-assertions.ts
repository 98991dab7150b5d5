import { expect } from 'chai';
import type { CliResult } from './cli-runner.js';

/** The JSON a command printed, once it exited 0. */
export function ok(r: CliResult): any {
  expect(r.code, r.stderr).to.equal(0);
  return r.json();
}

/** A failed command: its exit code, nothing on stdout, and its stderr. */
export function failed(r: CliResult, code: 1 | 2): string {
  expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).to.equal(code);
  expect(r.stdout).to.equal('');
  return r.stderr;
}
