import { appendFileSync } from 'node:fs';
import type { Context } from 'mocha';
import { leftOutLine } from './engine-registry.js';
import { stopAllEngines } from './engines.js';

// With SPOOR_TEST_TIMINGS=<file>, each test file's wall time is appended to <file> as
// "<ms>\t<file>" lines at the end: the time from one test's end to the next test's start goes to
// the next test's file (its `before` hooks), so engines and services started in hooks count where
// they are started. For finding what makes the suite long; nothing is written without it.
const timingsFile = process.env['SPOOR_TEST_TIMINGS'];
const spent = new Map<string, number>();
let mark = Date.now();

function charge(file: string | undefined): void {
  const now = Date.now();
  const key = file ?? '(no file)';
  spent.set(key, (spent.get(key) ?? 0) + now - mark);
  mark = now;
}

// Loaded by .mocharc.cjs `require`: whatever engines the run started are stopped once, after
// the last test, and the skipped-engines banner (or, in `npm run test:unit`, what was left out) is printed.
export const mochaHooks = {
  beforeEach(this: Context): void {
    if (timingsFile) charge(this.currentTest?.file);
  },
  afterEach(this: Context): void {
    if (timingsFile) charge(this.currentTest?.file);
  },
  async afterAll(): Promise<void> {
    await stopAllEngines();
    const line = leftOutLine();
    if (line) process.stderr.write(`\n${line}\n`);
    if (timingsFile) {
      const rows = [...spent].sort((a, b) => b[1] - a[1]).map(([file, ms]) => `${ms}\t${file}`);
      appendFileSync(timingsFile, `${rows.join('\n')}\n`);
    }
  },
};
