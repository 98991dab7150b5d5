import { stopAllEngines } from './engines.js';

// Loaded by .mocharc.json `require`: whatever engines the run started are stopped once,
// after the last test of every file, and the skipped-engines banner is printed.
export const mochaHooks = {
  async afterAll(): Promise<void> {
    await stopAllEngines();
  },
};
