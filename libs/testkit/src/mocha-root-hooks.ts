import { leftOutLine } from './engine-registry.js';
import { stopAllEngines } from './engines.js';

// Loaded by .mocharc.cjs `require`: whatever engines the run started are stopped once, after
// the last test, and the skipped-engines banner (or, in `npm run test:unit`, what was left out) is printed.
export const mochaHooks = {
  async afterAll(): Promise<void> {
    await stopAllEngines();
    const line = leftOutLine();
    if (line) process.stderr.write(`\n${line}\n`);
  },
};
