import { expect } from 'chai';
import type { Context } from 'mocha';
import type { Browser, Page } from 'playwright-core';
import { startChromiumAndSpoor } from '../support/chromium-spoor.js';
import type { Mode } from '../support/engine-env.js';
import type { Harness } from '../support/spoor-harness.js';
import { expectLabelled, openDashboard, type DashboardTab } from './dashboard-browser.js';

export interface DashboardRig {
  browser: Browser;
  spoor: Harness;
  tab: DashboardTab;
  page: Page;
  /** Ends a step: a screenshot named `name`, every input labelled, no page or console error. */
  finish(name: string): Promise<void>;
  stop(): Promise<void>;
}

/** Chromium and Spoor in `mode` (with `env`), one dashboard tab; skips loudly when either is missing. */
export async function startDashboardRig(
  ctx: Context,
  mode: Mode,
  env: Record<string, string> = {},
): Promise<DashboardRig> {
  const { browser, spoor } = await startChromiumAndSpoor(ctx, mode, env);
  const tab = await openDashboard(browser, mode);
  return {
    browser,
    spoor,
    tab,
    page: tab.page,
    async finish(name) {
      await tab.screenshot(name);
      await expectLabelled(tab.page);
      expect(tab.errors).to.deep.equal([]);
      expect(tab.pending(), 'declared failures that never came').to.deep.equal([]);
    },
    async stop() {
      await browser.close();
      await spoor.stop();
    },
  };
}
